import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTokenCommand } from '../../src/cli/commands/token.js';
import { DEFAULT_RETRY_PARAMETERS, type ServiceConfig } from '../../src/core/queue-config.js';
import { openServiceParts, openTaskQueue } from '../../src/open-task-queue.js';
import { PgPushStore } from '../../src/store/push/pg-push-store.js';
import { pushQueue } from '../helpers/push-sink.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { settingsFromEnvironment } from '../../src/config/service-settings.js';
import { droppedAfterAll, testPgUrl } from '../helpers/engines.js';

/** Schemas this file makes, dropped when it ends. */
const freshSchema = droppedAfterAll();

/**
 * The service behind PgBouncer (Debian's pgbouncer, started here on a free
 * loopback port) in transaction pooling mode, with few server connections
 * so that consecutive statements of one client land on different ones:
 * with TASKQUEUE_PREPARED_STATEMENTS=off the in-process API, REST, the
 * migrations, the local issuer and caller transactions all work; long-polls
 * poll without a direct LISTEN connection and are notified with one.
 */

const PGBOUNCER = '/usr/sbin/pgbouncer';
const EMAIL = 'ops@example.com';

const config: ServiceConfig = {
  source: 'pgbouncer test',
  totalStorageLimitBytes: null,
  adminEmails: [EMAIL],
  queues: [
    {
      name: 'jobs',
      mode: 'pull',
      maxLeases: null,
      storageLimitBytes: null,
      leaseRate: null,
      retry: DEFAULT_RETRY_PARAMETERS,
      acl: { userEmails: [], writerEmails: [] },
    },
  ],
};

let bouncer: ChildProcess;
let bouncerUrl: string;
let bouncerLog = '';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

beforeAll(async () => {
  if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: apt-get install pgbouncer (.ci/run does)`);
  const direct = new URL(testPgUrl());
  const dir = mkdtempSync(join(tmpdir(), 'tq-pgbouncer-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const user = decodeURIComponent(direct.username) || 'postgres';
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${direct.hostname} port=${direct.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      // Few server connections for many clients: statements hop between them.
      'default_pool_size = 3',
      'max_client_conn = 200',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  // pgbouncer will not run as root; it drops to the postgres user itself.
  const asRoot = process.getuid?.() === 0;
  bouncer = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  bouncer.stdout!.on('data', (chunk: Buffer) => (bouncerLog += chunk.toString('utf8')));
  bouncer.stderr!.on('data', (chunk: Buffer) => (bouncerLog += chunk.toString('utf8')));
  bouncerUrl = `postgres://${user}@127.0.0.1:${port}${direct.pathname}`;
  // Up when it answers a query through itself.
  for (let attempt = 0; ; attempt++) {
    const client = new pg.Client({ connectionString: bouncerUrl });
    try {
      await client.connect();
      await client.query('select 1');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => {});
      if (attempt > 100 || bouncer.exitCode !== null)
        throw new Error(`pgbouncer did not start: ${String(error)}\n${bouncerLog}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
});

afterAll(async () => {
  if (bouncer && bouncer.exitCode === null) {
    bouncer.kill('SIGTERM');
    await new Promise((resolve) => bouncer.once('exit', resolve));
  }
});

describe('behind PgBouncer in transaction mode', () => {
  it('is refused with the default settings, which PgBouncer cannot carry', async () => {
    await expect(
      openTaskQueue({ databaseUrl: bouncerUrl, schema: freshSchema(), config, cleanupIntervalMs: 0 }),
    ).rejects.toThrow(/unsupported startup parameter/);
  });

  it('runs migrations, adds, leases, deletes and caller transactions with prepared statements off', async () => {
    const schema = freshSchema();
    const { service: tq, database } = await openServiceParts({
      databaseUrl: bouncerUrl,
      preparedStatements: false,
      schema,
      config,
      cleanupIntervalMs: 0,
      poolSize: 8,
    });
    const client = new pg.Client({ connectionString: bouncerUrl });
    await client.connect();
    try {
      const queue = tq.getQueue('jobs');
      // Many statements at once over 3 server connections: a named statement would be missing on some.
      await Promise.all(Array.from({ length: 40 }, (_, i) => queue.add({ name: `t-${i}`, payload: `p${i}` })));
      const leased = (
        await Promise.all(
          Array.from({ length: 8 }, () => queue.leaseTasks({ lease: 60, unit: 'seconds', maxTasks: 5 })),
        )
      ).flat();
      expect(new Set(leased.map((task) => task.name)).size).toBe(40);
      await Promise.all(leased.map((task) => queue.deleteTask(task)));
      expect(await queue.leaseTasks({ lease: 60, unit: 'seconds', maxTasks: 5 })).toEqual([]);

      // The planner settings are set in each transaction, since none can be given at connect.
      const db = database.db;
      const inside = await db
        .transaction()
        .execute(
          async (trx) =>
            (await sql<{ v: string }>`select current_setting('enable_hashjoin') as v`.execute(trx)).rows[0]?.v,
        );
      expect(inside).toBe('off');

      // A caller's pg transaction through the pooler: the add commits with it, or not at all.
      await client.query('begin');
      await queue.add({ name: 'rolled-back', payload: 'x' }, { transaction: client });
      await client.query('rollback');
      await client.query('begin');
      await queue.add({ name: 'committed', payload: 'y' }, { transaction: client });
      await client.query('commit');
      // And a Kysely transaction of ours.
      await db.transaction().execute((trx) => queue.add({ name: 'kysely', payload: 'z' }, { transaction: trx }));
      const names = (await queue.leaseTasks({ lease: 60, unit: 'seconds', maxTasks: 10 }))
        .map((task) => task.name)
        .sort();
      expect(names).toEqual(['committed', 'kysely']);
    } finally {
      await client.end();
      await tq.close();
    }
  });

  it('recovers the push claims of a dispatcher whose heartbeat stopped: no session state carries liveness', async () => {
    const schema = freshSchema();
    const pushConfig = { ...config, queues: [pushQueue('hooks', 'http://127.0.0.1:9', { maxConcurrentRequests: 1 })] };
    const { service: tq, store } = await openServiceParts({
      databaseUrl: bouncerUrl,
      preparedStatements: false,
      schema,
      config: pushConfig,
      cleanupIntervalMs: 0,
      dispatch: false,
    });
    try {
      const queue = tq.getQueue('hooks');
      await queue.add([{ name: 'a' }, { name: 'b' }]);
      const push = new PgPushStore(store);
      const [dead, live] = await Promise.all([
        push.registerDispatcher({ leaseMs: 60_000 }),
        push.registerDispatcher({ leaseMs: 60_000 }),
      ]);
      const claim = (dispatcherId: string) =>
        push.claim({
          queueId: queue.id,
          queueName: 'hooks',
          ratePerSecond: 100,
          bucketSize: 100,
          maxConcurrentRequests: 1,
          limit: 1,
          deadlineMs: 600_000,
          marginMs: 30_000,
          dispatcherId,
        });
      expect((await claim(dead)).tasks).toHaveLength(1);
      expect((await claim(live)).tasks).toEqual([]);
      expect((await push.heartbeat({ dispatcherId: live, leaseMs: 60_000 })).recoveredQueueIds).toEqual([]);
      const direct = new pg.Client({ connectionString: testPgUrl() });
      await direct.connect();
      await direct.query(
        `update ${schema}.push_dispatchers set expires_at = now() - interval '1 second' where id = $1`,
        [dead],
      );
      await direct.end();
      expect(await push.heartbeat({ dispatcherId: live, leaseMs: 60_000 })).toEqual({
        alive: true,
        recoveredQueueIds: [queue.id],
      });
      expect((await claim(live)).tasks).toHaveLength(1);
      expect((await push.heartbeat({ dispatcherId: dead, leaseMs: 60_000 })).alive).toBe(false);
    } finally {
      await tq.close();
    }
  });

  it('wakes long-polls by polling without a LISTEN connection, and by notification with one', async () => {
    const schema = freshSchema();
    // The task comes from another service (another process, in effect): only the database can tell the waiter.
    const producer = await openTaskQueue({
      databaseUrl: bouncerUrl,
      preparedStatements: false,
      schema,
      config,
      cleanupIntervalMs: 0,
    });
    try {
      for (const listenDatabaseUrl of [null, testPgUrl()]) {
        const tq = await openTaskQueue({
          databaseUrl: bouncerUrl,
          preparedStatements: false,
          listenDatabaseUrl,
          schema,
          config,
          cleanupIntervalMs: 0,
        });
        try {
          const queue = tq.getQueue('jobs');
          const started = performance.now();
          const waiting = queue.waitForTasks(20_000);
          // Long enough for the LISTEN connection to be open and the queue marked as waited on.
          await new Promise((resolve) => setTimeout(resolve, 500));
          await producer.getQueue('jobs').add({ payload: 'wake up' });
          const added = performance.now();
          await waiting;
          const wokeAfterMs = performance.now() - added;
          console.info(
            `${listenDatabaseUrl ? 'notified' : 'polling'}: woken ${wokeAfterMs.toFixed(0)} ms after the add`,
          );
          expect(performance.now() - started).toBeLessThan(10_000);
          expect(wokeAfterMs).toBeLessThan(3_000);
          const [task] = await queue.leaseTasks({ lease: 60, unit: 'seconds', maxTasks: 1 });
          expect(task?.payload.toString()).toBe('wake up');
          await queue.deleteTask(task!);
        } finally {
          await tq.close();
        }
      }
    } finally {
      await producer.close();
    }
  });

  it('serves REST with a token from the local issuer, all through the pooler', async () => {
    const schema = freshSchema();
    const env = {
      DATABASE_URL: bouncerUrl,
      TASKQUEUE_PREPARED_STATEMENTS: 'off',
      TASKQUEUE_SCHEMA: schema,
      TASKQUEUE_AUTH: 'on',
      TASKQUEUE_LOCAL_ISSUER: 'on',
      TASKQUEUE_ADMINS: EMAIL,
      PORT: '0',
      HOST: '127.0.0.1',
    };
    let running: RunningServer | null = null;
    try {
      running = await startServer({
        settings: { ...settingsFromEnvironment(env), configPath: null },
        env,
        log: () => {},
      });
      // `taskqueue token` mints through the pooler too (the signing key lives in the database).
      const token = await runTokenCommand(['--email', EMAIL], env);
      const base = `${running.url}/taskqueue/v1beta2/projects/local/taskqueues/pull-queue`;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const added = await fetch(`${base}/tasks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ queueName: 'pull-queue', payloadBase64: Buffer.from('over rest').toString('base64') }),
      });
      expect(added.status).toBe(200);
      const leased = await fetch(`${base}/tasks/lease?leaseSecs=30&numTasks=1`, { method: 'POST', headers });
      expect(leased.status).toBe(200);
      const body = (await leased.json()) as { items: Array<{ id: string; payloadBase64: string }> };
      expect(Buffer.from(body.items[0]!.payloadBase64, 'base64').toString()).toBe('over rest');
      const deleted = await fetch(`${base}/tasks/${body.items[0]!.id}`, { method: 'DELETE', headers });
      expect(deleted.status).toBe(200);
    } finally {
      await running?.close();
    }
  });
});
