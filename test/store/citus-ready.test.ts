import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { settingsFromEnvironment } from '../../src/config/service-settings.js';
import { openDatabase } from '../../src/store/engine/database.js';
import { splitSql } from '../../src/store/migrate/split-sql.js';
import { translateError } from '../../src/store/translate-error.js';
import { sql } from 'kysely';
import { ENGINES, openTestService, testPgUrl, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { operatorOf } from '../helpers/operator-of.js';

/**
 * The Citus-ready edits (docs/scaling.md, "What runs on Citus, and how it is tested") change no
 * behaviour on PostgreSQL: each is kept true here, on both engines where it
 * touches the database.
 */

describe('duplicate task names without the constraint field (Citus re-raises a worker error with message and detail only)', () => {
  const citusError = (shard: string, detail?: string) =>
    Object.assign(new Error(`duplicate key value violates unique constraint "${shard}"`), {
      code: '23505',
      ...(detail === undefined ? {} : { detail }),
    });

  it('recognises the shard index in the message, and takes the name from the detail', () => {
    const error = translateError(citusError('tasks_pkey_102021', 'Key (queue_id, name)=(3, my-task) already exists.'), {
      queue: 'q',
    });
    expect(error.code).toBe('TASK_ALREADY_EXISTS');
    expect(error.details).toMatchObject({ queue: 'q', task: 'my-task' });
    expect(translateError(citusError('tasks_pkey')).code).toBe('TASK_ALREADY_EXISTS');
  });

  it('recognises the key columns in the detail when the message names no index', () => {
    const error = Object.assign(new Error('duplicate key'), {
      code: '23505',
      detail: 'Key (queue_id, name)=(1, a) already exists.',
    });
    expect(translateError(error).code).toBe('TASK_ALREADY_EXISTS');
  });

  it('leaves other unique violations alone', () => {
    expect(
      translateError(citusError('task_tombstones_pkey_102040', 'Key (queue_id, name)=(3, x) already exists.')).code,
    ).toBe('INTERNAL_ERROR');
    expect(translateError(citusError('auth_signing_keys_pkey')).code).toBe('INTERNAL_ERROR');
    expect(translateError(Object.assign(new Error('x'), { code: '23505', constraint: 'queues_name_key' })).code).toBe(
      'INTERNAL_ERROR',
    );
  });
});

describe('splitSql: one statement per query', () => {
  it('splits at semicolons outside quotes, dollar-quoted bodies and comments', () => {
    const text = [
      "-- a; comment\nCREATE TABLE a (x text DEFAULT ';');",
      'CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;',
      "DO $body$ BEGIN RAISE NOTICE '$$;'; END $body$;",
      "SELECT E'it\\'s; here', 'it''s; here', \"odd;name\" FROM a /* x; /* nested; */ y; */;",
      'SELECT a$b FROM t; -- only a comment after the last one;',
    ].join('\n');
    const parts = splitSql(text);
    expect(parts).toHaveLength(5);
    expect(parts[0]).toBe("-- a; comment\nCREATE TABLE a (x text DEFAULT ';');");
    expect(parts[1]).toContain('RETURN 1; END $$;');
    expect(parts[2]).toBe("DO $body$ BEGIN RAISE NOTICE '$$;'; END $body$;");
    expect(parts[3]).toContain('y; */;');
    expect(parts[4]).toBe('SELECT a$b FROM t;');
    expect(splitSql('SELECT 1')).toEqual(['SELECT 1']);
    expect(() => splitSql('SELECT $$ never closed;')).toThrow(/unterminated dollar-quoted/);
  });

  it('cuts every migration and routine of sql/ into statements whose dollar quotes all close', () => {
    const sqlDir = new URL('../../sql/', import.meta.url);
    const files = (dir: URL) =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.sql'))
        .map((f) => new URL(f, dir));
    for (const url of [...files(sqlDir), ...files(new URL('routines/', sqlDir))]) {
      const file = url.pathname.slice(url.pathname.indexOf('/sql/') + 1);
      const parts = splitSql(readFileSync(url, 'utf8'));
      expect(parts.length, file).toBeGreaterThan(0);
      for (const part of parts) {
        expect((part.match(/\$\$/g) ?? []).length % 2, `${file}: ${part.slice(0, 80)}`).toBe(0);
        expect(part.endsWith(';'), `${file}: ${part.slice(-80)}`).toBe(true);
      }
    }
  });
});

describe('plan cache setting (TASKQUEUE_PLAN_CACHE)', () => {
  it('defaults to generic plans; auto on request; refuses anything else', () => {
    expect(settingsFromEnvironment({}).planCache).toBe('generic');
    expect(settingsFromEnvironment({ TASKQUEUE_PLAN_CACHE: 'AUTO' }).planCache).toBe('auto');
    expect(() => settingsFromEnvironment({ TASKQUEUE_PLAN_CACHE: 'custom' })).toThrow(/TASKQUEUE_PLAN_CACHE/);
  });

  it.each([true, false])(
    'sets plan_cache_mode in the sessions (prepared statements %s)',
    async (preparedStatements) => {
      for (const [planCache, expected] of [
        [undefined, 'force_generic_plan'],
        ['auto', 'auto'],
      ] as const) {
        const database = await openDatabase({
          kind: 'postgres',
          url: testPgUrl(),
          poolSize: 1,
          preparedStatements,
          ...(planCache ? { planCache } : {}),
        });
        try {
          // Behind a pooler the settings ride in each transaction.
          const mode = await database.db.transaction().execute(async (trx) => {
            const result = await sql<{
              mode: string;
              jit: string;
            }>`/* probe */ select current_setting('plan_cache_mode') as mode, current_setting('jit') as jit`.execute(
              trx,
            );
            return result.rows[0];
          });
          expect(mode).toEqual({ mode: expected, jit: 'off' });
        } finally {
          await database.close();
        }
      }
    },
  );
});

describe.each(ENGINES)('Citus-ready statements behave as before on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  it('start-up writes every queue in one upsert: ids for all, settings and updated_at changed, removed queues inactive', async () => {
    const names = Array.from({ length: 150 }, (_, i) => `q${i}`);
    t = await openTestService(engine, serviceConfig(names.map((n) => pullQueue(n))));
    const ids = await t.sql<{ name: string; id: number; updated_at: Date }>(
      `select name, id, updated_at from ${t.schema}.queues where active`,
    );
    expect(ids).toHaveLength(151); // and `default`
    await t.sql(`update ${t.schema}.queues set updated_at = updated_at - interval '1 day'`);
    const other = await t.openAnother(
      serviceConfig([pullQueue('q1', { maxLeases: 3, storageLimitBytes: 1000 }), pullQueue('new')]),
      { ownQueues: true },
    );
    const rows = await t.sql<{
      name: string;
      id: number;
      active: boolean;
      max_leases: number | null;
      storage_limit_bytes: string | null;
      fresh: boolean;
    }>(
      `select name, id, active, max_leases, storage_limit_bytes::text as storage_limit_bytes, updated_at > now() - interval '1 hour' as fresh from ${t.schema}.queues where name in ('q1', 'q2', 'new')
        order by name`,
    );
    expect(rows.map(({ id: _id, ...r }) => r)).toEqual([
      { name: 'new', active: true, max_leases: null, storage_limit_bytes: null, fresh: true },
      { name: 'q1', active: true, max_leases: 3, storage_limit_bytes: '1000', fresh: true },
      { name: 'q2', active: false, max_leases: null, storage_limit_bytes: null, fresh: true },
    ]);
    expect(rows.find((r) => r.name === 'q1')!.id).toBe(ids.find((r) => r.name === 'q1')!.id);
    await other.getQueue('q1').add({ name: 'x' });
    expect((await t.sql(`select 1 from ${t.schema}.tasks`)).length).toBe(1);
  });

  it('pause keeps the time it began; resume clears it', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const queue = t.service.getQueue('q');
    await operatorOf(queue).pause();
    await t.sql(`update ${t.schema}.queues set paused_at = paused_at - interval '1 hour' where name = 'q'`);
    await operatorOf(queue).pause();
    const [paused] = await t.sql<{ paused: boolean; old: boolean }>(
      `select paused, paused_at < now() - interval '30 minutes' as old from ${t.schema}.queues where name = 'q'`,
    );
    expect(paused).toEqual({ paused: true, old: true });
    await operatorOf(queue).resume();
    const [resumed] = await t.sql(`select paused, paused_at from ${t.schema}.queues where name = 'q'`);
    expect(resumed).toEqual({ paused: false, paused_at: null });
  });

  it("purge's tombstone upsert moves an older tombstone's time to the purge", async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    await t.service.getQueue('q').add({ name: 'a' });
    const [{ id }] = (await t.sql<{ id: number }>(`select id from ${t.schema}.queues where name = 'q'`)) as [
      { id: number },
    ];
    await t.sql(
      `insert into ${t.schema}.task_tombstones (queue_id, name, reason, retry_count, deleted_at) values ($1, 'a', 'deleted', 0, now() - interval '3 days')`,
      [id],
    );
    expect(await operatorOf(t.service.getQueue('q')).purge()).toBe(1);
    const [row] = await t.sql(
      `select reason, deleted_at > now() - interval '1 hour' as fresh from ${t.schema}.task_tombstones where name = 'a'`,
    );
    expect(row).toEqual({ reason: 'purged', fresh: true });
  });

  it('dead letters are counted per queue by the database, exactly, whoever writes them', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 1 }), pullQueue('r')]));
    const [q, r] = (
      await t.sql<{ id: number }>(`select id from ${t.schema}.queues where name in ('q', 'r') order by name`)
    ).map((x) => x.id);
    const counted = async () =>
      Object.fromEntries((await t.service.overview(['q', 'r'])).map((o) => [o.name, o.deadLetters]));
    const actual = async () =>
      Object.fromEntries(
        (
          await t.sql<{ queue: string; n: number }>(
            `select q.name as queue, (select count(*)::int4 from ${t.schema}.task_dead_letters d where d.queue_id = q.id) as n
             from ${t.schema}.queues q where q.name in ('q', 'r')`,
          )
        ).map((x) => [x.queue, x.n]),
      );
    // The retry limit drops three tasks of q into its dead letters.
    const queue = t.service.getQueue('q');
    await queue.add([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    await queue.leaseTasks({ lease: 60, maxTasks: 10 });
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    expect(await queue.leaseTasks({ lease: 60, maxTasks: 10 })).toEqual([]);
    expect(await counted()).toEqual({ q: 3, r: 0 });
    // An operator's SQL, one statement over two queues; a name that dies again is not counted twice.
    await t.sql(
      `insert into ${t.schema}.task_dead_letters (queue_id, name, payload, retry_count, enqueued_at)
       select queue_id, name, '\\x', 1, now() from (values ($1::int4, 'x'), ($2::int4, 'y'), ($2::int4, 'z')) v (queue_id, name)`,
      [q, r],
    );
    await t.sql(
      `insert into ${t.schema}.task_dead_letters (queue_id, name, payload, retry_count, enqueued_at) values ($1, 'x', '\\x', 2, now())
       on conflict (queue_id, name) do update set retry_count = excluded.retry_count`,
      [q],
    );
    expect(await counted()).toEqual({ q: 4, r: 2 });
    // Redrive, delete for good, and a delete by the cleanup's kind of statement.
    expect(await operatorOf(queue).redrive(['a'])).toBe(1);
    expect(await operatorOf(queue).deleteDeadLetters(['b'])).toBe(1);
    await t.sql(`delete from ${t.schema}.task_dead_letters where queue_id = $1 and name = 'y'`, [r]);
    expect(await counted()).toEqual(await actual());
    expect(await counted()).toEqual({ q: 2, r: 1 });
    await t.sql(`truncate ${t.schema}.task_dead_letters`);
    expect(await counted()).toEqual({ q: 0, r: 0 });
  });
});
