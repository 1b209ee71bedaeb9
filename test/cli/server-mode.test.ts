import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/config/service-settings.js';
import { settingsFromEnvironment } from '../../src/config/service-settings.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { freshSchema, testPgUrl } from '../helpers/engines.js';
import { cli, jsonLines, pgAdmin } from './cli-harness.js';
import { TEST_OPERATOR } from '../helpers/operator-of.js';

/**
 * The operator commands against a real server (--url, --token), started in
 * the test on a loopback port: v1beta2 for add, lease and delete, the
 * operator routes (queue.admin: administrators only) for the rest.
 */

const QUEUE_YAML = `
queue:
- name: jobs
  mode: pull
  lease_rate: unlimited
- name: other
  mode: pull
  lease_rate: unlimited
- name: fragile
  mode: pull
  lease_rate: unlimited
  retry_parameters:
    task_retry_limit: 1
  acl:
  - user_email: worker@example.com
  - writer_email: worker@example.com
`;

describe('operator commands over HTTP (--url)', () => {
  let dir: string;
  let server: RunningServer;
  let serverEnv: Environment;
  /** The CLI's environment: the server's URL and an administrator's token. */
  let admin: Environment;
  let worker: Environment;
  const database = pgAdmin();
  const sql = database.sql;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'taskqueue-cli-url-'));
    writeFileSync(join(dir, 'queue.yaml'), QUEUE_YAML);
    serverEnv = {
      DATABASE_URL: testPgUrl(),
      TASKQUEUE_SCHEMA: freshSchema(),
      TASKQUEUE_CONFIG: join(dir, 'queue.yaml'),
      TASKQUEUE_ADMINS: 'admin@example.com',
      PORT: '0',
      HOST: '127.0.0.1',
    };
    server = await startServer({ settings: settingsFromEnvironment(serverEnv), env: serverEnv, log: () => {} });
    const token = async (email: string) => (await cli(['token', '--email', email], serverEnv)).out.trim();
    admin = { TASKQUEUE_URL: server.url, TASKQUEUE_TOKEN: await token('admin@example.com') };
    worker = { TASKQUEUE_URL: server.url, TASKQUEUE_TOKEN: await token('worker@example.com') };
  });
  afterAll(async () => {
    const schema = serverEnv.TASKQUEUE_SCHEMA ?? '';
    await sql(`drop schema if exists ${schema} cascade`).catch(() => {});
    await server.close();
    await database.end();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    for (const queue of ['jobs', 'other', 'fragile']) await server.service.operate(queue, TEST_OPERATOR).purge();
    const schema = serverEnv.TASKQUEUE_SCHEMA ?? '';
    await sql(`delete from ${schema}.task_tombstones`);
    await sql(`delete from ${schema}.task_dead_letters`);
    await sql(`update ${schema}.queues set paused = false`);
    await sql(`delete from ${schema}.audit_log`);
  });

  it('add, lease and delete go through REST v1beta2, with flags or the environment', async () => {
    const added = await cli(
      [
        'add',
        'jobs',
        'hello',
        '--name',
        'h1',
        '--tag',
        'greeting',
        '--url',
        server.url,
        '--token',
        admin.TASKQUEUE_TOKEN ?? '',
      ],
      {},
    );
    expect(added.code).toBe(0);
    expect(jsonLines(added.out)[0]).toMatchObject({
      name: 'h1',
      queue: 'jobs',
      tag: 'greeting',
      payloadBase64: Buffer.from('hello').toString('base64'),
    });
    const later = jsonLines((await cli(['add', 'jobs', '--countdown', '600'], admin, { stdin: 'later' })).out)[0] as {
      etaUsec: number;
      enqueuedUsec: number;
    };
    expect(later.etaUsec - later.enqueuedUsec).toBeGreaterThan(590e6);

    const leased = await cli(['lease', 'jobs', '--num', '10', '--lease-secs', '120', '--tag', 'greeting'], admin);
    expect(leased.code).toBe(0);
    expect(jsonLines(leased.out)).toEqual([
      expect.objectContaining({ name: 'h1', retryCount: 1, payloadBase64: 'aGVsbG8=' }),
    ]);

    const deleted = await cli(['delete', 'jobs', 'h1', 'gone'], admin);
    expect(deleted.code).toBe(3);
    expect(deleted.out).toBe('deleted 1 of 2 task(s) from jobs\n');
    expect((await server.service.getQueue('jobs').listTasks()).length).toBe(1);
  });

  it('queues, stats, pause, resume and purge act on the server, as JSON or tables', async () => {
    await server.service.getQueue('jobs').add([{ name: 'w1' }, { name: 'w2' }]);
    const queues = jsonLines((await cli(['queues', '--json'], admin)).out);
    expect(queues.find((q) => q.name === 'jobs')).toMatchObject({ availableTasks: 2, paused: false });
    expect((await cli(['queues'], admin)).out).toMatch(/^jobs\s+pull\s+running\s+2\s+0\s+0/m);
    expect(JSON.parse((await cli(['stats', 'jobs', '--json'], admin)).out)).toMatchObject({
      name: 'jobs',
      availableTasks: 2,
    });

    expect(await cli(['pause', 'jobs'], admin)).toMatchObject({ code: 0, out: 'queue jobs paused\n' });
    expect(await server.service.getQueue('jobs').isPaused()).toBe(true);
    expect(await cli(['lease', 'jobs'], admin)).toMatchObject({ code: 0, out: '' });
    expect((await cli(['resume', 'jobs'], admin)).code).toBe(0);
    expect(await server.service.getQueue('jobs').isPaused()).toBe(false);

    expect(await cli(['purge', 'jobs', '--yes'], admin)).toMatchObject({
      code: 0,
      out: 'purged 2 task(s) from jobs\n',
    });
    expect(await server.service.getQueue('jobs').listTasks()).toEqual([]);
    const audit = await sql(
      `select actor, action, queue, count, source from ${serverEnv.TASKQUEUE_SCHEMA}.audit_log order by id`,
    );
    expect(audit).toEqual([
      { actor: 'admin@example.com', action: 'pause', queue: 'jobs', count: 0, source: 'rest' },
      { actor: 'admin@example.com', action: 'resume', queue: 'jobs', count: 0, source: 'rest' },
      { actor: 'admin@example.com', action: 'purge', queue: 'jobs', count: 2, source: 'rest' },
    ]);
  });

  it('dead-letters and redrive, over HTTP', async () => {
    const fragile = server.service.getQueue('fragile');
    await fragile.add({ name: 'dies', payload: 'last words' });
    await fragile.leaseTasks({ lease: 60, maxTasks: 1 });
    await sql(`update ${serverEnv.TASKQUEUE_SCHEMA}.tasks set eta = now() - interval '1 second'`);
    await fragile.leaseTasks({ lease: 60, maxTasks: 1 });

    const letters = jsonLines((await cli(['dead-letters', 'fragile', '--json'], admin)).out);
    expect(letters).toEqual([
      expect.objectContaining({
        name: 'dies',
        retryCount: 1,
        payloadBase64: Buffer.from('last words').toString('base64'),
      }),
    ]);
    expect((await cli(['dead-letters', 'fragile'], admin)).out).toMatch(/^dies\s+-\s+1\s+\S+Z\s+10\s+-$/m);
    expect((await cli(['redrive', 'fragile', 'nobody'], admin)).code).toBe(3);
    expect(await cli(['redrive', 'fragile'], admin)).toMatchObject({
      code: 0,
      out: 'redriven 1 dead letter(s) to fragile\n',
    });
    expect((await fragile.getTask('dies')).retryCount).toBe(0);
  });

  it('run-now and attempts, over HTTP', async () => {
    const jobs = server.service.getQueue('jobs');
    await jobs.add({ name: 'later', countdownSeconds: 3600 });
    expect(await cli(['run-now', 'jobs', 'later'], admin)).toMatchObject({
      code: 0,
      out: 'made 1 task(s) of jobs due now\n',
    });
    expect((await cli(['run-now', 'jobs', '--all', '--dry-run'], admin)).out).toBe('0 task(s) of jobs would run now\n');
    const [task] = await jobs.leaseTasks({ lease: 60, maxTasks: 1 });
    await jobs.failTask(task!, 'no luck');
    expect(jsonLines((await cli(['attempts', 'jobs', 'later', '--json'], admin)).out)).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'failed', error: 'no luck', httpStatus: null }),
    ]);
  });

  it('search, over HTTP: the same lines as on the database, and where to go on', async () => {
    const other = server.service.getQueue('other');
    await other.add([
      { name: 'find-a', tag: 'x', payload: 'needle one' },
      { name: 'find-b', tag: 'x', payload: 'hay' },
      { name: 'find-c', tag: 'y', payload: 'needle two' },
    ]);
    const found = await cli(['search', 'other', '--name-prefix', 'find', '--payload', 'needle', '--json'], admin);
    expect(found.code, found.err).toBe(0);
    expect(jsonLines(found.out)).toEqual([
      expect.objectContaining({ name: 'find-a', queue: 'other', tag: 'x', retryCount: 0, lastError: null }),
      expect.objectContaining({ name: 'find-c', queue: 'other', tag: 'y' }),
    ]);
    expect(Object.keys(jsonLines(found.out)[0]!)).toEqual([
      'name',
      'queue',
      'tag',
      'retryCount',
      'etaUsec',
      'enqueuedUsec',
      'lastError',
      'payloadBase64',
    ]);
    const first = await cli(['search', 'other', '--tag-prefix', 'x', '--limit', '1'], admin);
    expect(first.out).toMatch(/^find-a\s+x\s+0\s+\S+Z\s+-$/m);
    const cursor = /--cursor (\S+)$/m.exec(first.err)?.[1];
    const next = await cli(['search', 'other', '--tag-prefix', 'x', '--cursor', cursor!, '--json'], admin);
    expect(jsonLines(next.out).map((task) => task.name)).toEqual(['find-b']);
  });

  it('operator actions are for administrators only: a queue user gets 403 (exit 1), no token 401; add and lease still jobs for them', async () => {
    for (const argv of [
      ['pause', 'fragile'],
      ['purge', 'fragile', '--yes'],
      ['queues'],
      ['stats', 'fragile'],
      ['dead-letters', 'fragile'],
      ['export', 'fragile'],
      ['search', 'fragile'],
      ['cron', 'list'],
      ['cron', 'run', 'any'],
    ]) {
      const run = await cli(argv, worker);
      expect(run.code, argv.join(' ')).toBe(1);
      expect(run.err).toContain('HTTP 403');
    }
    const anonymous = await cli(['pause', 'fragile'], { TASKQUEUE_URL: server.url });
    expect(anonymous.code).toBe(1);
    expect(anonymous.err).toContain('HTTP 401');
    expect(await server.service.getQueue('fragile').isPaused()).toBe(false);
    expect((await cli(['add', 'fragile', 'mine'], worker)).code).toBe(0);
    expect(jsonLines((await cli(['lease', 'fragile'], worker)).out)).toHaveLength(1);
  });

  it('an unknown queue is exit 3, a server that is not there exit 1', async () => {
    for (const argv of [
      ['stats', 'nope'],
      ['pause', 'nope'],
      ['add', 'nope', 'x'],
      ['lease', 'nope'],
      ['export', 'nope'],
    ]) {
      const run = await cli(argv, admin);
      expect(run.code, argv.join(' ')).toBe(3);
    }
    const down = await cli(['queues'], { TASKQUEUE_URL: 'http://127.0.0.1:1' });
    expect(down.code).toBe(1);
    expect(down.err).toContain('could not reach http://127.0.0.1:1');
    expect((await cli(['queues', '--url', 'ftp://x'], {})).code).toBe(1);
  });

  it("the operator routes answer errors in Google's envelope", async () => {
    const response = await fetch(`${server.url}/taskqueue/admin/v1/taskqueues/jobs/pause`, { method: 'POST' });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { code: number; errors: { domain: string }[] } };
    expect(body.error.code).toBe(401);
    expect(body.error.errors[0]?.domain).toBe('global');
  });
});
