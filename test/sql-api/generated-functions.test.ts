import { readFile } from 'node:fs/promises';
import { sql, type CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import { readSqlMigrations, readSqlRoutines, ROUTINES_DIR } from '../../scripts/generate-migrations.js';
import { deleteStatement } from '../../src/store/delete-tasks.js';
import { leaseQuery } from '../../src/store/lease-tasks.js';
import { modifyLeaseStatement } from '../../src/store/modify-lease.js';
import { sqlApiFunctions } from '../../src/store/sql-api/sql-api-functions.js';
import { generatedHeader, generatedRoutines } from '../../src/store/sql-api/sql-api-routines.js';
import { compiler } from '../../src/store/sql-api/sql-api-text.js';
import type { StoreContext } from '../../src/store/store-context.js';

/**
 * The SQL API's generated functions and the service's statement builders
 * cannot drift: each generated routine file (sql/routines/<name>.sql) must
 * be exactly what the builders emit today. When this fails after a change
 * to a builder (src/store/lease-tasks.ts), run `npm run generate:sql-api`:
 * migrate() re-applies the changed routines at the next start. No database: this file is in the unit project.
 */
describe('generated SQL API functions', () => {
  it.each(generatedRoutines().map((routine) => [routine.name, routine] as const))(
    'sql/routines/%s.sql is what the builders emit today',
    async (name, routine) => {
      const text = await readFile(`${ROUTINES_DIR}${name}.sql`, 'utf8').catch(() => null);
      expect(text, `sql/routines/${name}.sql: run \`npm run generate:sql-api\``).toBe(routine.text);
    },
  );

  it('sql/ holds each generated function once: in its routine file, in no other routine and no migration after 0.2.0', async () => {
    const routines = await readSqlRoutines();
    const migrations = (await readSqlMigrations()).filter((m) => m.version > 11);
    for (const fn of sqlApiFunctions()) {
      const defines = new RegExp(`\\bFUNCTION ${fn.name}\\(`);
      expect(routines.filter((r) => defines.test(r.text)).map((r) => r.name)).toEqual([fn.name]);
      expect(migrations.filter((m) => defines.test(m.text)).map((m) => m.name)).toEqual([]);
    }
    // A generated file is marked as such, and only a generated one.
    const generated = new Set(sqlApiFunctions().map((fn) => fn.name));
    for (const r of routines) expect(r.text.startsWith('-- GENERATED from'), r.name).toBe(generated.has(r.name));
    for (const name of generated) expect(generatedHeader(name)).toMatch(/do not edit by hand/);
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
