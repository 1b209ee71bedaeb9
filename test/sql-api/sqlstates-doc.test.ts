import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SQL_API_SQLSTATES } from '../../src/store/sql-api/sql-api-errors.js';

/** docs/sql-api.md's table of SQLSTATEs is the one table of sql-api-errors.ts, row for row. */
describe('the SQLSTATEs of docs/sql-api.md', () => {
  it('lists every SQLSTATE of SQL_API_SQLSTATES with its error code, and no other', () => {
    const doc = readFileSync(new URL('../../docs/sql-api.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `(TQ\d{3})` \| `([A-Z_]+)` \|/gm)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(rows)).toEqual(SQL_API_SQLSTATES);
    expect(rows).toHaveLength(Object.keys(SQL_API_SQLSTATES).length);
  });
});
