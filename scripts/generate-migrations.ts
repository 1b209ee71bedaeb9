// Writes src/store/migrate/migrations.ts from sql/*.sql and sql/routines/*.sql: the
// migrations and routines travel inside the code, so the service (bundled
// or not) never reads sql/ at run time. sql/ is the source of truth and the
// module is not committed: `npm run build`, `npm run typecheck` and the
// tests' global setup write it (only when its text changes, so a build that
// is current stays current), and `npm run generate:migrations` does it by
// hand. A change to a routine is then a diff of its file under sql/ alone.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Migration } from '../src/store/migrate/migration.js';
import type { Routine } from '../src/store/migrate/routine.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SQL_DIR = `${ROOT}sql/`;
export const ROUTINES_DIR = `${SQL_DIR}routines/`;
export const MODULE_PATH = `${ROOT}src/store/migrate/migrations.ts`;

/** The numbered migrations of a folder (`NNNN_name.sql`), in order. */
export async function readSqlMigrations(dir: string = SQL_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file)).sort();
  return Promise.all(
    files.map(async (file) => ({
      version: Number.parseInt(file.slice(0, 4), 10),
      name: file.slice(5, -4),
      text: await readFile(`${dir}${file}`, 'utf8'),
    })),
  );
}

/** The routine files of a folder (`<name>.sql`), by name. */
export async function readSqlRoutines(dir: string = ROUTINES_DIR): Promise<Routine[]> {
  const files = (await readdir(dir)).filter((file) => /^[a-z0-9_]+\.sql$/.test(file)).sort();
  return Promise.all(
    files.map(async (file) => ({ name: file.slice(0, -4), text: await readFile(`${dir}${file}`, 'utf8') })),
  );
}

/** The text of src/store/migrate/migrations.ts for these migrations and routines. */
export function renderMigrationsModule(migrations: readonly Migration[], routines: readonly Routine[]): string {
  const entries = migrations.map(
    (m) =>
      `  {\n    version: ${m.version},\n    name: ${JSON.stringify(m.name)},\n    text: ${JSON.stringify(m.text)},\n  },\n`,
  );
  const routineEntries = routines.map(
    (r) => `  {\n    name: ${JSON.stringify(r.name)},\n    text: ${JSON.stringify(r.text)},\n  },\n`,
  );
  return (
    '// Generated from sql/*.sql and sql/routines/*.sql by scripts/generate-migrations.ts\n' +
    '// (at build, typecheck and test time; not committed). Do not edit: sql/ is the source of truth.\n' +
    "import type { Migration } from './migration.js';\n" +
    "import type { Routine } from './routine.js';\n\n" +
    '/** The numbered migrations of sql/, in order, with their text. */\n' +
    `export const MIGRATIONS: readonly Migration[] = [\n${entries.join('')}];\n\n` +
    '/** The routines of sql/routines/, by name, with their text. */\n' +
    `export const ROUTINES: readonly Routine[] = [\n${routineEntries.join('')}];\n`
  );
}

/** Writes the module when its text differs from sql/'s; says whether it did. */
export async function writeMigrationsModule(): Promise<{ written: boolean; migrations: number; routines: number }> {
  const migrations = await readSqlMigrations();
  const routines = await readSqlRoutines();
  const text = renderMigrationsModule(migrations, routines);
  const current = await readFile(MODULE_PATH, 'utf8').catch(() => null);
  if (current !== text) await writeFile(MODULE_PATH, text);
  return { written: current !== text, migrations: migrations.length, routines: routines.length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { written, migrations, routines } = await writeMigrationsModule();
  if (!process.argv.includes('--quiet') || written) {
    console.log(
      `src/store/migrate/migrations.ts: ${migrations} migrations and ${routines} routines from sql/` +
        (written ? '' : ' (unchanged)'),
    );
  }
}
