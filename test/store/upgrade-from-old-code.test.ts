import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load-config.js';
import { isQueueError } from '../../src/core/errors.js';
import { openTaskQueue } from '../../src/open-task-queue.js';
import { openDatabase } from '../../src/store/engine/database.js';
import { latestMigration, migrate } from '../../src/store/migrate/migrate.js';
import { MIGRATIONS } from '../../src/store/migrate/migrations.js';
import { SQUASHED_VERSIONS, UNRELEASED_SQUASHED } from '../../src/store/migrate/unreleased-history.js';
import { catalogDiff, catalogSnapshot, type CatalogSnapshot } from '../helpers/catalog-snapshot.js';
import { ENGINES, freshSchema } from '../helpers/engines.js';
import { TEST_OPERATOR } from '../helpers/operator-of.js';
import { adminSql, dropFixtureSchema, FIXTURE_DIR, loadFixture, type AdminSql } from '../helpers/upgrade-fixture.js';

/**
 * Upgrades from databases that old revisions of taskqueue made and filled
 * through their own API (test/fixtures/upgrades/, made by
 * scripts/upgrade-fixtures/make-upgrade-fixture.sh): 0.1.0 (migrations
 * 0001-0009), 0.2.0 (0001-0011) and main at 83f877d (0001-0029). Each is
 * loaded into a fresh schema and migrated by today's migrate(); then nothing
 * the old code stored is lost, the service works on it, and its catalog is
 * that of a schema migrated fresh.
 */
const FIXTURES = [
  { label: '0.1.0', made: 9, audit: false, push: false },
  { label: '0.2.0', made: 11, audit: true, push: false },
  { label: 'main-83f877d', made: 29, audit: true, push: true },
] as const;
type Fixture = (typeof FIXTURES)[number];

const DAY_MS = 24 * 3600 * 1000;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    if (isQueueError(error)) return error.code;
    throw error;
  }
}

/** What the old code stored, in the columns every revision has: compared before and after the migration. */
async function storedRows(admin: AdminSql, schema: string, fixture: Fixture): Promise<Record<string, unknown[]>> {
  const rows = async (text: string) => admin.query(text.replaceAll('$S', `"${schema}"`));
  return {
    queues: await rows(`select id, name, mode, max_leases, paused, paused_at from $S.queues order by id`),
    tasks: await rows(
      `select queue_id, name, eta, retry_count, tag, encode(payload, 'hex') as payload, enqueued_at
         from $S.tasks order by queue_id, name`,
    ),
    tombstones: await rows(`select * from $S.task_tombstones order by queue_id, name`),
    deadLetters: await rows(
      `select queue_id, name, tag, encode(payload, 'hex') as payload, retry_count, enqueued_at, died_at
         from $S.task_dead_letters order by queue_id, name`,
    ),
    audit: fixture.audit
      ? await rows(`select id, at, actor, action, queue, target, count, source from $S.audit_log order by id`)
      : [],
    cron: fixture.push
      ? await rows(`select name, schedule, url, queue, last_task, last_outcome, last_fired_at from $S.cron_jobs`)
      : [],
  };
}

describe.each(ENGINES)('upgrade from databases made by old code (%s)', (engine) => {
  let admin: AdminSql;
  let fresh: CatalogSnapshot;
  const schemas: string[] = [];
  const newSchema = () => {
    const schema = freshSchema();
    schemas.push(schema);
    return schema;
  };

  beforeAll(async () => {
    admin = await adminSql(engine);
    const schema = newSchema();
    const database = await openDatabase(admin.database);
    try {
      await migrate(database.db, schema);
    } finally {
      await database.close();
    }
    fresh = await catalogSnapshot(admin.query, schema);
    // The comparison means something only if every part was read.
    for (const [part, lines] of Object.entries(fresh)) expect(lines.length, part).toBeGreaterThan(0);
  });

  afterAll(async () => {
    for (const schema of schemas) await dropFixtureSchema(admin, schema);
    await admin.close();
  });

  it.each(FIXTURES)('$label: keeps every row, serves the queues, ends as a fresh schema', async (fixture) => {
    const schema = newSchema();
    await loadFixture(admin, fixture.label, schema);
    const S = `"${schema}"`;
    const before = await storedRows(admin, schema, fixture);

    // Not the rows themselves (a squash of migrations may rewrite them): what the old code had applied.
    const [had] = await admin.query<{ version: number }>(`select max(version) as version from ${S}.schema_migrations`);
    expect(had!.version).toBe(fixture.made);
    const database = await openDatabase(admin.database);
    try {
      const result = await migrate(database.db, schema);
      // What follows the fixture's last migration: a development build's 0029 is
      // bridged to the squashed 0018, so only the migrations after 0018 run there.
      const lastUnreleased = UNRELEASED_SQUASHED[UNRELEASED_SQUASHED.length - 1]![0];
      const from = had!.version === lastUnreleased ? Math.max(...SQUASHED_VERSIONS) : had!.version;
      expect(result.applied).toEqual(MIGRATIONS.filter((m) => m.version > from).map((m) => m.version));
      expect(result.current).toBe(await latestMigration());
      expect((await migrate(database.db, schema)).applied).toEqual([]);
    } finally {
      await database.close();
    }

    // Nothing lost: every row the old code stored is there, unchanged.
    expect(await storedRows(admin, schema, fixture)).toEqual(before);

    // ... and it is the data the fixture was made with.
    const counts = await admin.query<{ queue: string; n: number }>(
      `select q.name as queue, count(t.name)::int as n from ${S}.queues q left join ${S}.tasks t on t.queue_id = q.id
        group by q.name order by q.name`,
    );
    expect(Object.fromEntries(counts.map((c) => [c.queue, c.n]))).toEqual({
      default: 0,
      fragile: 1,
      orders: fixture.push ? 25 : 23,
      paused: 2,
      ...(fixture.push ? { hooks: 4 } : {}),
    });
    const task = async (name: string) =>
      (
        await admin.query<{ tag: string | null; retry_count: number; payload: Buffer | Uint8Array; eta: Date }>(
          `select tag, retry_count, payload, eta from ${S}.tasks where name = $1`,
          [name],
        )
      )[0]!;
    const now = Date.now();
    expect(Buffer.from((await task('order-3')).payload).toString()).toBe('{"order":3}');
    expect(await task('order-3')).toMatchObject({ tag: 'eu', retry_count: 0 });
    expect(Buffer.from((await task('binary-1')).payload)).toEqual(
      Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
    );
    expect((await task('retried-1')).retry_count).toBe(1);
    const held = await task('held-1');
    expect(held.retry_count).toBe(1);
    expect(held.eta.getTime()).toBeGreaterThan(now + 5.5 * DAY_MS);
    const later = await task('later-1');
    expect(later.tag).toBe('eu');
    expect(later.eta.getTime()).toBeGreaterThan(now + 4.5 * DAY_MS);
    expect(later.eta.getTime()).toBeLessThan(now + 5.5 * DAY_MS);
    const unnamed = await admin.query(`select 1 from ${S}.tasks where tag = 'bulk'`);
    expect(unnamed).toHaveLength(12);

    const tombstones = await admin.query<{ name: string; reason: string; retry_count: number }>(
      `select name, reason, retry_count from ${S}.task_tombstones where name !~ '^[A-Za-z0-9_-]{22,24}$' order by name`,
    );
    expect(tombstones).toEqual([
      { name: 'done-1', reason: 'deleted', retry_count: 0 },
      { name: 'done-2', reason: 'deleted', retry_count: 0 },
      { name: 'doomed-1', reason: 'retry_limit', retry_count: 1 },
      { name: 'doomed-2', reason: 'retry_limit', retry_count: 1 },
      ...(fixture.push ? [{ name: 'sql-3', reason: 'deleted', retry_count: 0 }] : []),
    ]);
    const dead = await admin.query<{ name: string; tag: string | null; retry_count: number; payload: string }>(
      `select name, tag, retry_count, convert_from(payload, 'UTF8') as payload from ${S}.task_dead_letters order by name`,
    );
    expect(dead).toEqual([
      { name: 'doomed-1', tag: 'doom', retry_count: 1, payload: 'doomed' },
      { name: 'doomed-2', tag: null, retry_count: 1, payload: 'doomed too' },
    ]);
    expect(await admin.query(`select name from ${S}.queues where paused order by name`)).toEqual([{ name: 'paused' }]);
    if (fixture.audit) {
      const audit = await admin.query(
        `select actor, action, queue, target, count, source from ${S}.audit_log order by id`,
      );
      const by = { actor: 'fixture@example.com', source: 'fixture' };
      expect(audit).toEqual([
        { ...by, action: 'delete_task', queue: 'orders', target: 'done-2', count: 1 },
        { ...by, action: 'pause', queue: 'paused', target: null, count: 0 },
        ...(fixture.push
          ? [
              {
                ...by,
                action: 'cron_run',
                queue: 'hooks',
                target: expect.stringMatching(/^cron-nightly-report-run-/),
                count: 1,
              },
            ]
          : []),
      ]);
    }
    if (fixture.push) {
      const [cron] = await admin.query<{ name: string; queue: string; last_outcome: string; last_task: string }>(
        `select name, queue, last_outcome, last_task from ${S}.cron_jobs`,
      );
      expect(cron).toMatchObject({ name: 'nightly-report', queue: 'hooks', last_outcome: 'added' });
      expect(await task(cron!.last_task)).toBeDefined();
      const [hook] = await admin.query<{ push: { url: string; method: string } }>(
        `select push from ${S}.tasks where name = 'hook-1'`,
      );
      expect(hook!.push).toMatchObject({ url: '/hook/1', method: 'POST', headers: [['X-Fixture', '1']] });
      expect(await admin.query(`select source from ${S}.queue_definitions`)).toEqual([{ source: 'queue.xml' }]);
    }

    // The catalog is that of a schema migrated fresh by today's code.
    const upgraded = await catalogSnapshot(admin.query, schema);
    const diff = catalogDiff(upgraded, fresh, { a: `upgraded from ${fixture.label}`, b: 'fresh' });
    expect(diff, `the upgraded schema differs from a fresh one:\n${diff}`).toBe('');

    // The service works on it.
    const tq = await openTaskQueue({
      config: await loadConfigFile(join(FIXTURE_DIR, `${fixture.label}.queue.xml`)),
      schema,
      database: admin.database,
      cleanupIntervalMs: 0,
      definitionsCheckMs: 0,
      dispatch: false,
      cron: false,
      cronFiring: false,
    });
    try {
      const status = await tq.schemaStatus();
      expect(status.current).toBe(status.latest);

      const orders = tq.getQueue('orders');
      const leased = await orders.leaseTasks({ lease: 60, maxTasks: 1000 });
      // Available: every task but the delayed (later-*) and those still under a lease (held-1, sql-1).
      const named = leased
        .filter((t) => t.tag !== 'bulk')
        .map((t) => t.name)
        .sort();
      expect(named).toEqual(
        ['binary-1', 'order-1', 'order-2', 'order-3', 'order-4', 'order-5', 'order-6', 'retried-1']
          .concat(fixture.push ? ['sql-2'] : [])
          .sort(),
      );
      expect(leased.filter((t) => t.tag === 'bulk').map((t) => t.payload.toString())).toHaveLength(12);
      expect(leased.find((t) => t.name === 'retried-1')!.retryCount).toBe(2);
      expect(await orders.leaseTasks({ lease: 60, maxTasks: 1000 })).toEqual([]);

      expect(await orders.deleteTask(leased.find((t) => t.name === 'order-1')!)).toBe(true);
      expect(await codeOf(orders.add({ name: 'order-1' }))).toBe('TOMBSTONED_TASK');
      expect(await codeOf(orders.add({ name: 'done-1' }))).toBe('TOMBSTONED_TASK');
      expect(await codeOf(tq.getQueue('fragile').add({ name: 'doomed-1' }))).toBe('TOMBSTONED_TASK');
      expect(await codeOf(orders.add({ name: 'later-1' }))).toBe('TASK_ALREADY_EXISTS');

      await orders.add({ name: 'after-upgrade', payload: 'new', tag: 'new' });
      const [fresh] = await orders.leaseTasksByTag({ tag: 'new', lease: 60, maxTasks: 10 });
      expect(fresh).toMatchObject({ name: 'after-upgrade', retryCount: 1, tag: 'new' });
      expect(fresh!.payload.toString()).toBe('new');

      const fragile = tq.operate('fragile', TEST_OPERATOR);
      expect((await fragile.listDeadLetters({ limit: 10 })).map((d) => d.name).sort()).toEqual([
        'doomed-1',
        'doomed-2',
      ]);
      expect(await tq.operate('paused', TEST_OPERATOR).isPaused()).toBe(true);
      expect(await codeOf(tq.getQueue('paused').leaseTasks({ lease: 60, maxTasks: 10 }))).not.toBe('resolved');
      if (fixture.push) {
        const hook = await tq.getQueue('hooks').getTask('hook-1');
        expect(hook.payload.toString()).toBe('h1');
      }
    } finally {
      await tq.close();
    }
  });
});
