import { mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireDataDirLock } from '../../src/store/engine/data-dir-lock.js';
import { freshSchema, testPgUrl } from '../helpers/engines.js';
import { spawnServer, type ChildServer } from './child-server.js';
import { OPS_QUEUE_YAML } from './ops-harness.js';

const QUEUE = '/taskqueue/v1beta2/projects/local/taskqueues/jobs';

interface Reply {
  readonly status: number;
  readonly connection: string | undefined;
  readonly body: string;
  readonly at: number;
}

function call(url: string, method: string, agent: Agent | false, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text, at: Date.now() }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A directory with the test queue.yaml, found there as ./queue.yaml (no TASKQUEUE_CONFIG). */
function configDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tq-shutdown-'));
  writeFileSync(join(dir, 'queue.yaml'), OPS_QUEUE_YAML);
  return dir;
}

const children: ChildServer[] = [];
const schemas: string[] = [];
function start(env: Record<string, string>, cwd = configDir()): ChildServer {
  const child = spawnServer(env, cwd);
  children.push(child);
  return child;
}
function postgresEnv(extra: Record<string, string> = {}): Record<string, string> {
  const schema = freshSchema();
  schemas.push(schema);
  return { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: schema, ...extra };
}

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  const admin = new pg.Client({ connectionString: testPgUrl() });
  await admin.connect();
  for (const schema of schemas) await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
});

describe('graceful shutdown of a real server process', () => {
  it('SIGTERM under keep-alive load: each connection gets Connection: close, and the process exits within the grace period', async () => {
    const grace = 5;
    const child = start(postgresEnv({ TASKQUEUE_SHUTDOWN_GRACE_SECONDS: String(grace) }));
    const url = await child.started;
    // Found in the working directory, as queue.xml would be.
    expect(child.lines.find((line) => line.msg === 'config loaded')?.source).toBe('queue.yaml');

    const clients = 8;
    let signalledAt = 0;
    const afterSignal: Reply[][] = Array.from({ length: clients }, () => []);
    let before = 0;
    const loops = Array.from({ length: clients }, async (_, i) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let n = 0; ; n++) {
          const reply =
            n % 2 === 0
              ? await call(`${url}${QUEUE}/tasks`, 'POST', agent, JSON.stringify({ payloadBase64: 'eA==' }))
              : await call(`${url}${QUEUE}/tasks/lease?numTasks=1&leaseSecs=60`, 'POST', agent);
          expect(reply.status).toBe(200);
          if (signalledAt === 0) before++;
          else afterSignal[i]!.push(reply);
        }
      } catch {
        // Refused or reset: the server is gone, as it should be.
      } finally {
        agent.destroy();
      }
    });
    while (before < 200) await new Promise((resolve) => setTimeout(resolve, 20));
    signalledAt = Date.now();
    child.kill('SIGTERM');
    const exit = await child.exited;
    await Promise.all(loops);
    const shutdownMs = exit.at - signalledAt;
    console.log(
      `shutdown under keep-alive load (${clients} clients, ${before} requests before the signal): ${shutdownMs} ms`,
    );

    expect(exit.code).toBe(0);
    expect(shutdownMs).toBeLessThan(grace * 1000);
    // Each connection is told to close at its next response; the client's
    // reconnection is refused. So a connection sees a handful of replies
    // after the signal, never thousands: the one in flight, and those the
    // server answered between the kill() here and its signal handler running
    // (one more on a busy machine), then one with Connection: close.
    for (const replies of afterSignal) {
      expect(replies.length).toBeLessThanOrEqual(3);
      expect(replies.filter((reply) => reply.connection !== 'close').length).toBeLessThanOrEqual(2);
    }
    const msgs = child.lines.map((line) => line.msg);
    expect(msgs).toContain('shutting down');
    expect(msgs.at(-1)).toBe('stopped');
  });

  it('SIGTERM answers a pending long-poll at once with what it has and exits long before the grace period', async () => {
    const env = postgresEnv({ TASKQUEUE_SHUTDOWN_GRACE_SECONDS: '10' });
    const child = start(env);
    const url = await child.started;
    const poll = call(`${url}${QUEUE}/tasks/lease?numTasks=5&leaseSecs=60&waitSecs=50`, 'POST', false);
    // The poll is waiting once the server has marked its queue as waited on (queue_waiters).
    const admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    try {
      await expect
        .poll(
          async () =>
            (await admin.query(`select 1 from ${env.TASKQUEUE_SCHEMA}.queue_waiters where until > now()`)).rowCount,
          { interval: 50 },
        )
        .toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    const signalledAt = Date.now();
    child.kill('SIGTERM');
    const reply = await poll;
    const exit = await child.exited;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ kind: 'taskqueues#tasks' });
    expect(reply.connection).toBe('close');
    expect(reply.at - signalledAt).toBeLessThan(2000);
    expect(exit.code).toBe(0);
    expect(exit.at - signalledAt).toBeLessThan(5000);
    console.log(
      `pending long-poll answered ${reply.at - signalledAt} ms after SIGTERM; process exited after ${exit.at - signalledAt} ms`,
    );
  });

  it('a second signal exits at once, and the data directory is free for the next server', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tq-data-'));
    const child = start({ TASKQUEUE_DATA_DIR: dataDir, TASKQUEUE_SHUTDOWN_GRACE_SECONDS: '60' });
    const url = new URL(await child.started);
    // A request that never finishes (headers not complete) holds the shutdown for its grace period.
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /taskqueue/v1beta2/projects/local/taskqueues/jobs/tasks HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{',
    );
    socket.on('error', () => {});
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGTERM');
    const waitFor = async (msg: string) => {
      for (let i = 0; i < 100 && !child.lines.some((line) => line.msg === msg); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await waitFor('shutting down');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(child.proc.exitCode).toBeNull(); // still waiting for the unfinished request
    const secondAt = Date.now();
    child.kill('SIGTERM');
    const exit = await child.exited;
    expect(exit.at - secondAt).toBeLessThan(2000);
    expect(exit.code).toBe(143);
    expect(child.lines.some((line) => line.msg === 'second signal: exiting at once')).toBe(true);
    socket.destroy();

    // The lock went with the process: this process can take it at once.
    const lock = await acquireDataDirLock(dataDir);
    await lock.release();
  }, 120_000); // the embedded engine takes a while to create its data directory on a busy machine
});

describe('start-up of a real server process', () => {
  it('retries an unreachable database with a line per attempt, then exits clearly, never printing the password', async () => {
    const child = start({ DATABASE_URL: 'postgres://tq:pw-sekrit-991@127.0.0.1:1/tq', TASKQUEUE_DB_WAIT_SECONDS: '2' });
    const exit = await child.exited;
    expect(exit.code).toBe(1);
    const attempts = child.lines.filter((line) => line.msg === 'database not reachable; retrying');
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts[0]!.database).toBe('postgres://tq:***@127.0.0.1:1/tq');
    const last = child.lines.at(-1)!;
    expect(last.msg).toBe('could not start');
    expect(String(last.err)).toContain('DATABASE_URL');
    expect(String(last.err)).toContain('TASKQUEUE_DB_WAIT_SECONDS');
    expect(child.output()).not.toContain('pw-sekrit-991');
  });

  it('refuses a DATABASE_URL that is not a PostgreSQL URL, and a TASKQUEUE_CONFIG naming a missing file; warns on the built-in sample', async () => {
    const notPg = start({ DATABASE_URL: 'mysql://root:pw-sekrit-992@db/tq' });
    expect((await notPg.exited).code).toBe(1);
    expect(notPg.output()).toContain('DATABASE_URL must be a PostgreSQL URL');
    expect(notPg.output()).not.toContain('pw-sekrit-992');

    const missing = start(postgresEnv({ TASKQUEUE_CONFIG: '/nonexistent/queue.yaml' }));
    expect((await missing.exited).code).toBe(1);
    expect(missing.output()).toContain('/nonexistent/queue.yaml');

    const sample = start(postgresEnv(), mkdtempSync(join(tmpdir(), 'tq-empty-')));
    await sample.started;
    const warning = sample.lines.find((line) =>
      String(line.msg).startsWith('running on the built-in sample configuration'),
    );
    expect(warning?.level).toBe(40);
    sample.kill('SIGTERM');
    expect((await sample.exited).code).toBe(0);
  });
});
