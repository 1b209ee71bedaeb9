// Writes the SQL API's generated functions (src/store/sql-api/sql-api-functions.ts)
// into their routine files: `npm run generate:sql-api` (re)writes
// sql/routines/<name>.sql for each, whole. The build and the tests embed
// sql/ in the code (scripts/generate-migrations.ts); migrate() re-applies a
// routine whose text changed at the next start.
// test/sql-api/generated-functions.test.ts fails while a file differs
// from what the builders emit today.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generatedRoutines } from '../src/store/sql-api/sql-api-routines.js';
import { ROUTINES_DIR } from './generate-migrations.js';

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.length > 2) {
    console.error(
      'usage: npm run generate:sql-api   (no arguments: it rewrites every generated sql/routines/<name>.sql)',
    );
    process.exit(2);
  }
  const routines = generatedRoutines();
  for (const routine of routines) await writeFile(`${ROUTINES_DIR}${routine.name}.sql`, routine.text);
  console.log(`sql/routines/: ${routines.map((r) => `${r.name}.sql`).join(', ')}`);
}
