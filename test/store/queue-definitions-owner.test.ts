import { afterEach, describe, expect, it } from 'vitest';
import { parseQueueYaml } from '../../src/config/parse-queue-yaml.js';
import { parseCronText } from '../../src/config/load-cron-config.js';
import { readinessCheck } from '../../src/server/readiness-check.js';
import { openTaskQueue, type OpenTaskQueue, type WiringOptions } from '../../src/open-task-queue.js';
import {
  ENGINES,
  openTestService,
  testPGlite,
  testPgUrl,
  type TestEngine,
  type TestService,
} from '../helpers/engines.js';

/**
 * One owner per definition (issue: a worker opened without queue.xml wrote
 * the built-in sample over the server's queues, and a producer without a
 * cron file retired the `cron` queue, printing nothing). Two processes'
 * worth of services on one database: a server that owns the definitions,
 * then libraries without a configuration, with a partial one, with a
 * conflicting one, and a second owner (a rolling deploy).
 */
const SERVER_QUEUE_YAML = [
  'queue:',
  '- name: emails',
  '  mode: pull',
  '  retry_parameters: {task_retry_limit: 5}',
  '  acl:',
  '  - user_email: worker@example.com',
  '- name: hooks',
  '  rate: 20/s',
  '  bucket_size: 40',
  '  target_url: http://127.0.0.1:9/hooks',
  '  retry_parameters: {task_retry_limit: 3, min_backoff_seconds: 2}',
  '',
].join('\n');
const CRON = parseCronText(
  'cron:\n- description: tick\n  url: /tick\n  schedule: every 24 hours\n',
  'cron.yaml',
  'yaml',
);

describe.each(ENGINES)('queue definitions have one owner (%s)', (engine) => {
  let t: TestService | undefined;
  const opened: OpenTaskQueue[] = [];
  afterEach(async () => {
    for (const service of opened.splice(0)) await service.close();
    await t?.close();
    t = undefined;
  });

  /** The server: owns the definitions of its queue.yaml and runs a cron file. */
  const startServer = async () => {
    t = await openTestService(engine, parseQueueYaml(SERVER_QUEUE_YAML, '/srv/queue.yaml'), {
      open: { ownQueues: true, cron: CRON, cronFiring: false, dispatch: false },
    });
    return t;
  };
  /** Another process on the same database and schema; no config, no cron file unless given. */
  const openProcess = async (server: TestService, options: Partial<WiringOptions> = {}) => {
    const service = await openTaskQueue({
      schema: server.schema,
      database: await databaseOf(engine),
      cleanupIntervalMs: 0,
      dispatch: false,
      cronFiring: false,
      cron: false,
      definitionsCheckMs: 0,
      ...options,
    });
    opened.push(service);
    return service;
  };
  const queueRows = (server: TestService) =>
    server.sql<{ name: string; active: boolean; max_leases: number | null }>(
      `select name, active, max_leases from ${server.schema}.queues order by name`,
    );
  const revisions = async (server: TestService) =>
    (await server.sql<{ n: number }>(`select count(*)::int as n from ${server.schema}.queue_definitions`))[0]!.n;

  it("a library opened without a configuration serves the database's queues and rewrites nothing", async () => {
    const server = await startServer();
    const before = await queueRows(server);
    expect(before.map((r) => [r.name, r.active])).toEqual([
      ['cron', true],
      ['default', true],
      ['emails', true],
      ['hooks', true],
    ]);

    const worker = await openProcess(server);
    expect(await queueRows(server)).toEqual(before);
    expect(await revisions(server)).toBe(1);
    expect(
      worker
        .queues()
        .map((q) => q.name)
        .sort(),
    ).toEqual(['cron', 'default', 'emails', 'hooks']);
    // The whole definition comes back, not defaults: retry limit, ACL, backoff, push settings.
    const emails = worker.queues().find((q) => q.name === 'emails')!;
    expect([emails.maxLeases, emails.acl.userEmails]).toEqual([5, ['worker@example.com']]);
    const hooks = worker.queues().find((q) => q.name === 'hooks')!;
    expect([
      hooks.retry.minBackoffSeconds,
      hooks.push?.ratePerSecond,
      hooks.push?.bucketSize,
      hooks.push?.baseUrl,
    ]).toEqual([2, 20, 40, 'http://127.0.0.1:9/hooks']);
    // The README's worker: add and lease on the server's queue.
    await worker.getQueue('emails').add({ name: 'welcome', payload: 'hi' });
    expect(
      (await server.service.getQueue('emails').leaseTasks({ lease: 60, maxTasks: 1 })).map((task) => task.name),
    ).toEqual(['welcome']);
    expect(await server.service.definitionsStatus()).toEqual({ serving: 1, current: 1 });
  });

  it('a producer with a partial configuration and no cron file keeps the cron queue and sees every queue', async () => {
    const server = await startServer();
    const producer = await openProcess(server, {
      config: parseQueueYaml(
        'queue:\n- name: emails\n  mode: pull\n  retry_parameters: {task_retry_limit: 5}\n  acl:\n  - user_email: worker@example.com\n',
        'producer/queue.yaml',
      ),
      pushBaseUrl: 'http://127.0.0.1:9',
    });
    expect((await queueRows(server)).filter((r) => !r.active)).toEqual([]);
    expect(await revisions(server)).toBe(1);
    expect(
      producer
        .queues()
        .map((q) => q.name)
        .sort(),
    ).toEqual(['cron', 'default', 'emails', 'hooks']);
    await producer.getQueue('cron').add({ name: 'by-producer', url: '/tick' });
  });

  it('a conflicting configuration is refused, naming the queues, and nothing is written', async () => {
    const server = await startServer();
    const before = await queueRows(server);
    const conflicting = parseQueueYaml(
      'queue:\n- name: emails\n  mode: pull\n  retry_parameters: {task_retry_limit: 2}\n- name: reports\n  mode: pull\n',
      'other/queue.yaml',
    );
    const refused = await openProcess(server, { config: conflicting }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'INVALID_CONFIG' });
    const message = (refused as Error).message;
    expect(message).toContain(
      'other/queue.yaml disagrees with the queue definitions in the database (revision 1, written from /srv/queue.yaml',
    );
    expect(message).toContain('"emails" differs in retry limit, acl');
    expect(message).toContain('"reports" is not defined in the database');
    expect(await queueRows(server)).toEqual(before);
    expect(await revisions(server)).toBe(1);
  });

  it('a new owner (a rolling deploy) writes a revision; the old process notices and stays ready; an old owner restarting serves the new revision', async () => {
    const server = await startServer();
    const next = parseQueueYaml(
      SERVER_QUEUE_YAML.replace('task_retry_limit: 5', 'task_retry_limit: 7'),
      '/srv/queue.yaml',
    );
    const deployed = await openProcess(server, { config: next, ownQueues: true, cron: CRON });
    expect(await revisions(server)).toBe(2);
    expect((await queueRows(server)).find((r) => r.name === 'emails')?.max_leases).toBe(7);
    expect(await deployed.definitionsStatus()).toEqual({ serving: 2, current: 2 });
    expect(await server.service.definitionsStatus()).toEqual({ serving: 1, current: 2 });
    // Every old instance notices at once: none may leave service for it, or a deploy takes the fleet out.
    expect(await readinessCheck(server.service, new AbortController().signal)()).toEqual({ ready: true });
    expect(await readinessCheck(deployed, new AbortController().signal)()).toEqual({ ready: true });

    // An old instance restarting mid-deploy (or a roll back) must not undo the deploy: it serves revision 2.
    const old = parseQueueYaml(SERVER_QUEUE_YAML, '/srv/queue.yaml');
    const restarted = await openProcess(server, { config: old, ownQueues: true, cron: CRON });
    expect(await revisions(server)).toBe(2);
    expect(restarted.config.queues.find((q) => q.name === 'emails')?.maxLeases).toBe(7);
    expect(await restarted.definitionsStatus()).toEqual({ serving: 2, current: 2 });
    expect((await queueRows(server)).find((r) => r.name === 'emails')?.max_leases).toBe(7);
    // Going back on purpose: forced.
    await openProcess(server, { config: old, ownQueues: true, cron: CRON, forceQueues: true });
    expect(await revisions(server)).toBe(3);
    expect((await queueRows(server)).find((r) => r.name === 'emails')?.max_leases).toBe(5);
  });

  it('an owner without a cron file keeps the built-in cron queue the other servers fire through, and writes no revision for it', async () => {
    const server = await startServer();
    const same = parseQueueYaml(SERVER_QUEUE_YAML, '/srv/queue.yaml');
    const noCron = await openProcess(server, { config: same, ownQueues: true });
    expect(await revisions(server)).toBe(1);
    expect((await queueRows(server)).map((r) => [r.name, r.active])).toEqual([
      ['cron', true],
      ['default', true],
      ['emails', true],
      ['hooks', true],
    ]);
    expect(
      noCron
        .queues()
        .map((q) => q.name)
        .sort(),
    ).toEqual(['cron', 'default', 'emails', 'hooks']);
    expect(await server.service.definitionsStatus()).toEqual({ serving: 1, current: 1 });
    // A new configuration written by an owner without a cron file keeps it too.
    const next = parseQueueYaml(
      SERVER_QUEUE_YAML.replace('task_retry_limit: 5', 'task_retry_limit: 6'),
      '/srv/queue.yaml',
    );
    await openProcess(server, { config: next, ownQueues: true });
    expect(await revisions(server)).toBe(2);
    expect((await queueRows(server)).find((r) => r.name === 'cron')?.active).toBe(true);
  });

  it('an owner with a cron file joins definitions an owner without one wrote: the built-in cron queue is added, no new revision', async () => {
    t = await openTestService(engine, parseQueueYaml(SERVER_QUEUE_YAML, '/srv/queue.yaml'), {
      open: { ownQueues: true, cron: false, cronFiring: false, dispatch: false },
    });
    expect((await queueRows(t)).map((r) => r.name)).toEqual(['default', 'emails', 'hooks']);
    const withCron = await openProcess(t, {
      config: parseQueueYaml(SERVER_QUEUE_YAML, '/srv/queue.yaml'),
      ownQueues: true,
      cron: CRON,
    });
    expect(
      withCron
        .queues()
        .map((q) => q.name)
        .sort(),
    ).toEqual(['cron', 'default', 'emails', 'hooks']);
    expect((await queueRows(t)).map((r) => [r.name, r.active])).toEqual([
      ['cron', true],
      ['default', true],
      ['emails', true],
      ['hooks', true],
    ]);
    expect(await revisions(t)).toBe(1);
  });

  it('an owner whose definitions are current still writes its own base URL into push_settings (the SQL API checks it)', async () => {
    const server = await startServer();
    const pushSettings = async () =>
      (
        await server.sql<{ name: string; base: string | null }>(
          `select name, push_settings->>'baseUrl' as base from ${server.schema}.queues where name = 'cron'`,
        )
      )[0]?.base ?? null;
    const same = parseQueueYaml(SERVER_QUEUE_YAML, '/srv/queue.yaml');
    await openProcess(server, { config: same, ownQueues: true, cron: CRON, pushBaseUrl: 'http://127.0.0.1:9/first' });
    expect(await pushSettings()).toBe('http://127.0.0.1:9/first');
    await openProcess(server, { config: same, ownQueues: true, cron: CRON, pushBaseUrl: 'http://127.0.0.1:9/second' });
    expect(await pushSettings()).toBe('http://127.0.0.1:9/second');
    expect(await revisions(server)).toBe(1);
  });

  it("the built-in sample a process without configuration wrote is nobody's: the first configuration replaces it", async () => {
    t = await openTestService(engine, parseQueueYaml('queue:\n- name: solo\n  mode: pull\n', 'queue.yaml'));
    await t.sql(`truncate ${t.schema}.queues, ${t.schema}.queue_definitions`);
    const sample = await openProcess(t);
    expect(sample.config.source).toBe('built-in');
    const later = await openProcess(t, {
      config: parseQueueYaml('queue:\n- name: emails\n  mode: pull\n', 'queue.yaml'),
    });
    expect(
      later
        .queues()
        .map((q) => q.name)
        .sort(),
    ).toEqual(['default', 'emails']);
    expect((await queueRows(t)).map((r) => [r.name, r.active])).toEqual([
      ['default', true],
      ['emails', true],
      ['pull-queue', false],
    ]);
  });

  it('a library with a configuration writes it to a fresh database (the embedded quick start)', async () => {
    t = await openTestService(engine, parseQueueYaml('queue:\n- name: solo\n  mode: pull\n', 'queue.yaml'));
    expect((await queueRows(t)).map((r) => r.name)).toEqual(['default', 'solo']);
    expect(await revisions(t)).toBe(1);
  });
});

async function databaseOf(engine: TestEngine): Promise<NonNullable<WiringOptions['database']>> {
  return engine === 'postgres'
    ? { kind: 'postgres', url: testPgUrl(), poolSize: 2 }
    : { kind: 'pglite-instance', instance: await testPGlite() };
}
