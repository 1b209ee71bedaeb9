import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, ROUTINES } from '../../src/store/migrate/migrations.js';
import {
  MODULE_PATH,
  readSqlMigrations,
  readSqlRoutines,
  renderMigrationsModule,
} from '../../scripts/generate-migrations.js';

describe('src/store/migrate/migrations.ts', () => {
  it('carries sql/ and sql/routines/ exactly (written by the global setup from sql/)', async () => {
    const fromSql = await readSqlMigrations();
    const routines = await readSqlRoutines();
    expect(fromSql.length).toBeGreaterThan(0);
    expect(routines.length).toBeGreaterThan(0);
    expect(MIGRATIONS).toEqual(fromSql);
    expect(ROUTINES).toEqual(routines);
    expect(await readFile(MODULE_PATH, 'utf8')).toBe(renderMigrationsModule(fromSql, routines));
  });

  it('numbers the migrations 1, 2, 3, ... without gaps', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    const expected = Array.from({ length: versions.length }, (_, i) => i + 1);
    expect(versions).toEqual(expected);
  });

  it('holds no function body in a numbered migration after the released ones (functions are routines)', () => {
    for (const m of MIGRATIONS.filter((m) => m.version > 11)) {
      expect(m.text, `sql/${String(m.version).padStart(4, '0')}_${m.name}.sql`).not.toMatch(
        /\bCREATE\s+(OR\s+REPLACE\s+)?(FUNCTION|VIEW)\b/i,
      );
    }
  });
});
