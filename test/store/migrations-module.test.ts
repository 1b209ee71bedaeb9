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

  it('numbers the migrations 1, 2, 3, ... without gaps (but numbers reserved by work merged separately)', () => {
    // 12-14 are reserved for migrations of other branches; once they are
    // merged this list changes nothing and can go.
    const reserved = new Set([12, 13, 14]);
    const versions = MIGRATIONS.map((m) => m.version);
    const last = Math.max(...versions);
    const expected = Array.from({ length: last }, (_, i) => i + 1).filter((v) => !reserved.has(v) || versions.includes(v));
    expect(versions).toEqual(expected);
  });
});
