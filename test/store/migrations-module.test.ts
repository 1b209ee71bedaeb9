import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { MODULE_PATH, readSqlMigrations, renderMigrationsModule } from '../../scripts/generate-migrations.js';

describe('src/store/migrations.ts', () => {
  it('carries sql/ exactly (else run `npm run generate:migrations`)', async () => {
    const fromSql = await readSqlMigrations();
    expect(fromSql.length).toBeGreaterThan(0);
    expect(MIGRATIONS).toEqual(fromSql);
    expect(await readFile(MODULE_PATH, 'utf8')).toBe(renderMigrationsModule(fromSql));
  });

  it('numbers the migrations 1, 2, 3, ... without gaps', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    // 0016 is another change's, merged separately; this exception goes at that merge.
    const expected = Array.from({ length: versions.length + 1 }, (_, i) => i + 1).filter((v) => v !== 16);
    expect(versions).toEqual(expected);
  });
});
