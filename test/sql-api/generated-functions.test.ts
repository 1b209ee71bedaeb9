import { sql, type CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import { readSqlMigrations } from '../../scripts/generate-migrations.js';
import { writeGenerated } from '../../scripts/generate-sql-api.js';
import { deleteStatement } from '../../src/store/delete-tasks.js';
import { leaseQuery } from '../../src/store/lease-tasks.js';
import { modifyLeaseStatement } from '../../src/store/modify-lease.js';
import { sqlApiFunctions, withMarkers } from '../../src/store/sql-api-functions.js';
import { compiler } from '../../src/store/sql-api-text.js';
import type { StoreContext } from '../../src/store/store-context.js';

/**
 * The SQL API's generated functions and the service's statement builders
 * cannot drift: the newest migration that defines each function must carry
 * exactly the text the builders emit today. When this fails after a change
 * to a builder (src/store/lease-tasks.ts), add a migration with
 * `npm run generate:sql-api -- NNNN_name` and `npm run generate:migrations`.
 */
describe('generated SQL API functions', () => {
  it.each(sqlApiFunctions().map((fn) => [fn.name, fn] as const))(
    '%s: the newest migration defining it carries what the builders emit today',
    async (name, fn) => {
      const migrations = await readSqlMigrations();
      const defining = migrations.filter((m) => new RegExp(`\\bFUNCTION ${name}\\(`).test(m.text));
      const newest = defining[defining.length - 1];
      expect(newest, `no migration defines ${name}`).toBeDefined();
      const block = withMarkers(fn);
      expect(
        newest!.text.includes(block),
        `sql/${String(newest!.version).padStart(4, '0')}_${newest!.name}.sql does not carry the ${name} that the builders emit ` +
          'today: add a migration (`npm run generate:sql-api -- NNNN_name`, then `npm run generate:migrations`)',
      ).toBe(true);
    },
  );

  it('the generator rewrites only the text between the markers', () => {
    const once = writeGenerated('-- header\n');
    expect(once.startsWith('-- header\n\n')).toBe(true);
    expect(writeGenerated(once)).toBe(once);
    for (const fn of sqlApiFunctions()) expect(once).toContain(withMarkers(fn));
  });

  it("lease_tasks holds, for every shape of the service's lease, the statement the service runs, its variables where the service binds", () => {
    const lease = sqlApiFunctions().find((fn) => fn.name === 'lease_tasks')!.text;
    const ctx = { db: compiler, schema: 'taskqueue' } as unknown as StoreContext;
    // Distinct values, so each bound parameter tells which term it is.
    const variables = new Map<unknown, string>([
      [4242, 'v_queue_id'],
      [12_345, 'v_lease_ms'],
      [77, 'v_rate_calls'],
      [88, 'v_rate_seconds'],
      [66, 'v_max_leases'],
      ['tag-x', 'v_tag'],
      [32 << 20, String(32 << 20)], // the in-process budget, a constant in the function
    ]);
    let shapes = 0;
    for (const leaseRate of [null, { calls: 77, windowSeconds: 88 }]) {
      for (const maxLeases of [null, 66]) {
        for (const filter of [{ kind: 'any' }, { kind: 'tag', tag: 'tag-x' }, { kind: 'oldest' }] as const) {
          for (const maxTasks of [1, 999]) {
            const params = {
              queueId: 4242,
              queueName: 'q',
              maxTasks,
              leaseMs: 12_345,
              filter,
              maxLeases,
              leaseRate,
              payloadBudgetBytes: 32 << 20,
            };
            const compiled = leaseQuery(ctx, params).compile(compiler);
            const text = withVariables(compiled, (value) =>
              value === maxTasks ? 'v_max_tasks' : variables.get(value),
            );
            expect(lines(lease)).toContain(lines(text));
            shapes++;
          }
        }
      }
    }
    expect(shapes).toBe(24);
  });

  it('modify_lease holds the fenced modify the service runs, its variables where the service binds', () => {
    const modify = sqlApiFunctions().find((fn) => fn.name === 'modify_lease')!.text;
    const params = {
      queueId: 4242,
      queueName: 'q',
      name: 'task-x',
      leaseMs: 12_345,
      leaseToken: 1_700_000_000_123_456,
    };
    // The service binds the token as seconds and microseconds (timestampFromUsec); the function has it whole.
    const compiled = modifyLeaseStatement((table) => sql.table(`taskqueue.${table}`), {
      queueId: sql`${params.queueId}`,
      name: sql`${params.name}`,
      leaseMs: sql`${params.leaseMs}`,
      token: sql.raw('v_token'),
    }).compile(compiler);
    const names = new Map<unknown, string>([
      [4242, 'v_queue_id'],
      ['task-x', 'v_name'],
      [12_345, 'v_lease_ms'],
    ]);
    expect(lines(modify)).toContain(lines(withVariables(compiled, (value) => names.get(value))));
  });

  it('delete_tasks holds both deletes the service runs (names held by their form or not), its variables where the service binds', () => {
    const del = sqlApiFunctions().find((fn) => fn.name === 'delete_tasks')!.text;
    for (const heldByForm of [['a', 'b'], ['a']]) {
      const names = new Map<unknown, string>([
        [4242, 'v_queue_id'],
        [JSON.stringify(['a', 'b']), 'v_names'],
        [JSON.stringify(['a']), 'v_untracked'],
      ]);
      const statement = deleteStatement((table) => sql.table(`taskqueue.${table}`), heldByForm.length === 2, {
        queueId: sql`${4242}`,
        names: sql`${['a', 'b']}`,
        untracked: sql`${heldByForm}`,
        audited: sql``,
      });
      const text = withVariables(statement.compile(compiler), (value) =>
        names.get(Array.isArray(value) ? JSON.stringify(value) : value),
      );
      expect(lines(del)).toContain(lines(text));
    }
  });
});

/** A compiled statement's text with each bound value's placeholder replaced by the variable `nameOf` gives it. */
function withVariables(compiled: CompiledQuery, nameOf: (value: unknown) => string | undefined): string {
  return compiled.sql.replaceAll('"taskqueue".', '').replace(/\$(\d+)\b/g, (_, n: string) => {
    const value = compiled.parameters[Number(n) - 1];
    const name = nameOf(value);
    if (name === undefined) throw new Error(`unexpected bound value ${String(value)}`);
    return name;
  });
}

/** Compared line by line: the functions indent the statements. */
function lines(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
}
