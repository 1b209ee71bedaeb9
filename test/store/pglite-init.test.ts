import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/engine/database.js';
import { initPGliteDataDir, PGLITE_MEMORY_SETTINGS } from '../../src/store/engine/pglite-init.js';

/**
 * The embedded engine's data directory is initialised by a child process
 * (so initdb's memory is never this process's), completely or not at all,
 * and PGlite runs with the memory settings.
 */
describe('the embedded engine start-up', () => {
  it(
    'initialises a new data directory in a child process, then opens it with the memory settings',
    { timeout: 240_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'tq-init-'));
      const database = await openDatabase({ kind: 'pglite', dataDir });
      try {
        expect(existsSync(join(dataDir, 'pgdata', 'PG_VERSION'))).toBe(true);
        // Nothing left under a temporary name.
        expect(readdirSync(dataDir).filter((name) => name.includes('.init-'))).toEqual([]);
        for (const [name, value] of Object.entries(PGLITE_MEMORY_SETTINGS)) {
          const { rows } = await sql<{ setting: string }>`select current_setting(${name}) as setting`.execute(
            database.db,
          );
          expect(rows[0]?.setting, name).toBe(value);
        }
        await sql`create table kept (n int); insert into kept values (7)`.execute(database.db);
      } finally {
        await database.close();
      }
      // An initialised directory is opened as it is: the row is still there.
      await initPGliteDataDir(join(dataDir, 'pgdata'));
      const again = await openDatabase({ kind: 'pglite', dataDir });
      try {
        const { rows } = await sql<{ n: number }>`select n from kept`.execute(again.db);
        expect(rows).toEqual([{ n: 7 }]);
      } finally {
        await again.close();
      }
    },
  );

  it('refuses a directory holding other files, and leaves them alone', async () => {
    const busy = mkdtempSync(join(tmpdir(), 'tq-init-'));
    writeFileSync(join(busy, 'notes.txt'), 'mine');
    await expect(initPGliteDataDir(busy)).rejects.toThrow(/holds files but no database/);
    expect(readdirSync(busy)).toEqual(['notes.txt']);
  });
});
