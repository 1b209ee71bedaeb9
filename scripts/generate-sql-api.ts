// Writes the SQL API's generated functions (src/store/sql-api-functions.ts)
// into a migration: `npm run generate:sql-api -- NNNN_name [function...]`
// (every function, or only those named: the ones whose text changed) creates
// sql/NNNN_name.sql (with a header to complete) or, for a migration not yet
// released, replaces the text between its markers. Then run
// `npm run generate:migrations`. test/sql-api/generated-functions.test.ts
// fails until the newest migration defining each function carries the text
// the builders emit today.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generatedMarkers, sqlApiFunctions, withMarkers } from '../src/store/sql-api-functions.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The migration's text with each generated function between its markers (appended when missing). */
export function writeGenerated(text: string, only: readonly string[] = []): string {
  let out = text;
  for (const fn of sqlApiFunctions().filter((f) => only.length === 0 || only.includes(f.name))) {
    const { begin, end } = generatedMarkers(fn.name);
    const from = out.indexOf(begin);
    // The end marker with its line's end: one function's name can begin another's (add_task, add_tasks).
    const to = from < 0 ? -1 : out.indexOf(`${end}\n`, from);
    if (from >= 0 && to > from) out = out.slice(0, from) + withMarkers(fn) + out.slice(to + end.length + 1);
    else out = `${out.trimEnd()}\n\n${withMarkers(fn)}`;
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const name = process.argv[2];
  if (!name || !/^\d{4}_[a-z0-9_]+$/.test(name)) {
    console.error(
      'usage: npm run generate:sql-api -- NNNN_name [function...]   (the new migration, sql/NNNN_name.sql)',
    );
    process.exit(2);
  }
  const only = process.argv.slice(3);
  const unknown = only.filter((fn) => !sqlApiFunctions().some((f) => f.name === fn));
  if (unknown.length > 0) {
    console.error(`no generated function named ${unknown.join(', ')}`);
    process.exit(2);
  }
  const path = `${ROOT}sql/${name}.sql`;
  const header = `-- ${name.slice(0, 4)}: (why the SQL API's generated functions change; see src/store/sql-api-functions.ts).\n`;
  const text = existsSync(path) ? await readFile(path, 'utf8') : header;
  await writeFile(path, writeGenerated(text, only));
  console.log(
    `sql/${name}.sql: ${sqlApiFunctions()
      .filter((fn) => only.length === 0 || only.includes(fn.name))
      .map((fn) => fn.name)
      .join(', ')}`,
  );
}
