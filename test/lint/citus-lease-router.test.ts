import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { TagFilter } from '../../src/core/task-store.js';
import { leaseStatement, type LeaseShape, type LeaseValues } from '../../src/store/lease-tasks.js';

/**
 * Citus routes a statement to the one worker that holds its queue only when
 * its steps are SELECT, UPDATE or DELETE: an INSERT step (a CTE) makes it
 * subplans on every worker with a two-phase commit (docs/scaling.md). The
 * lease's history and dead letters are written by its UPDATE's trigger
 * (sql/routines/tasks_after_lease.sql) for that reason; this keeps a new
 * INSERT step out of the lease's shapes, which test/citus/remote-commands.test.ts
 * counts on Citus. The rate permit's upsert is the one INSERT left.
 */
const db = new Kysely<object>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

function shapes(): LeaseShape[] {
  const out: LeaseShape[] = [];
  for (const rate of [false, true])
    for (const maxLeases of [false, true])
      for (const filter of ['any', 'tag', 'oldest'] as TagFilter['kind'][])
        for (const budgetBinds of [false, true]) out.push({ rate, maxLeases, filter, budgetBinds });
  return out;
}

const values: LeaseValues = {
  queueId: sql`1`,
  maxTasks: sql`10`,
  leaseMs: sql`1000`,
  rateWindowSeconds: sql`1`,
  rateCalls: sql`10`,
  maxLeases: sql`3`,
  payloadBudgetBytes: sql`1000`,
  tag: sql`'t'`,
};

describe('the lease statement on Citus', () => {
  it('has no INSERT step in any shape but the rate permit’s', () => {
    for (const shape of shapes()) {
      const text = leaseStatement((name) => sql.table(name), shape, values).compile(db).sql;
      const inserts = [...text.matchAll(/\binsert\s+into\s+"?(\w+)/gi)].map((m) => m[1]);
      expect(inserts, JSON.stringify(shape)).toEqual(shape.rate ? ['lease_rate_windows'] : []);
    }
  });
});
