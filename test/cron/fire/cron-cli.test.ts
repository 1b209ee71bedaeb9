import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseCronText } from '../../../src/config/load-cron-config.js';
import { createApp } from '../../../src/http/create-app.js';
import type { WiringOptions } from '../../../src/open-task-queue.js';
import { cli, jsonLines } from '../../cli/cli-harness.js';
import { serviceConfig } from '../../helpers/configs.js';
import { openTestService, testPgUrl, type TestService } from '../../helpers/engines.js';
import { startSink, type Sink } from '../../helpers/push-sink.js';
import { listen } from '../../http/harness.js';
import { FakeCronClock, until } from './fake-cron-clock.js';

let t: TestService;
let sink: Sink;
let env: Record<string, string>;
const clock = new FakeCronClock('2026-03-01T09:00:30Z');

beforeAll(async () => {
  sink = await startSink();
  const cron = parseCronText(
    'cron:\n- name: tick\n  url: /tick\n  schedule: every 1 minutes\n  timezone: Europe/Paris\n',
    'cron.yaml',
    'yaml',
  );
  t = await openTestService('postgres', serviceConfig([]), {
    open: { cron, pushBaseUrl: sink.url, pushSigning: false, cronClock: clock } as WiringOptions,
  });
  env = { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: t.schema, TASKQUEUE_PUSH_BASE_URL: sink.url };
  await until(() => clock.waiting);
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

it('cron list shows the jobs the servers recorded; cron run fires one now through the servers; both on the database only', async () => {
  const listed = await cli(['cron', 'list'], env);
  expect(listed.code).toBe(0);
  expect(listed.out).toContain('tick: every 1 minutes (Europe/Paris) GET /tick via queue cron');
  expect(listed.out).toContain('last: never fired');

  const run = await cli(['cron', 'run', 'tick'], env);
  expect(run.code).toBe(0);
  expect(run.out).toMatch(/^tick: task cron-tick-run-\d{8}T\d{9}Z added\n$/);
  await sink.waitFor(1);
  expect(sink.requests[0]!.headers['x-appengine-cron']).toBe('true');
  // As App Engine's cron requests say, whatever queue delivers them.
  expect(sink.requests[0]!.headers['x-appengine-queuename']).toBe('__cron');
  // An operator action: in the audit log, by the CLI's operator, naming the job's queue and the task.
  const [entry] = await t.service.auditLog.list({ limit: 10, actions: ['cron_run'] });
  expect(entry).toMatchObject({
    action: 'cron_run',
    queue: 'cron',
    target: run.out.split(' ')[2],
    count: 1,
    source: 'cli',
  });
  expect(entry!.actor).toMatch(/^cli/);

  const [json] = jsonLines((await cli(['cron', 'list', '--json'], env)).out);
  expect(json).toMatchObject({ name: 'tick', queue: 'cron', lastOutcome: 'added', lastInstant: null });
  // The CLI reads the database's real clock (the servers here run on a fixed one): the next three minutes from now.
  const next = (json!.next as string[]).map((at) => Date.parse(at));
  expect(next).toHaveLength(3);
  expect(next[1]! - next[0]!).toBe(60_000);
  expect(Math.abs(next[0]! - Date.now())).toBeLessThan(120_000);

  const unknown = await cli(['cron', 'run', 'nope'], env);
  expect(unknown.code).toBe(3);
  expect(unknown.err).toContain('no cron job named "nope"');
});

it('cron run says why a firing failed: no base URL to deliver to, an inactive queue', async () => {
  const { TASKQUEUE_PUSH_BASE_URL: _base, ...withoutBase } = env;
  const nowhere = await cli(['cron', 'run', 'tick'], withoutBase);
  expect(nowhere.code).toBe(1);
  expect(nowhere.out).toMatch(
    /^tick: task cron-tick-run-\d{8}T\d{9}Z failed: .*nowhere to deliver.*TASKQUEUE_PUSH_BASE_URL/,
  );

  await t.sql(`update ${t.schema}.queues set active = false where name = 'cron'`);
  try {
    const inactive = await cli(['cron', 'run', 'tick'], env);
    expect(inactive.code).toBe(1);
    expect(inactive.out).toMatch(
      /^tick: task cron-tick-run-\S+ failed: queue "cron" is not defined .*job "tick" fires through queue "cron", which is not active in the database: .*the built-in cron queue when they start with a cron file\)/,
    );
  } finally {
    await t.sql(`update ${t.schema}.queues set active = true where name = 'cron'`);
  }
});

it('cron list and cron run go through a running server (--url), as the other operator commands do', async () => {
  const server = await listen(createApp({ service: t.service }));
  try {
    const remote = { TASKQUEUE_URL: server.url };
    const listed = await cli(['cron', 'list'], remote);
    expect(listed.err).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('tick: every 1 minutes (Europe/Paris) GET /tick via queue cron');
    // The last firing is the previous test's failed run, with its reason.
    expect(listed.out).toMatch(/ {2}last: \S+Z cron-tick-run-\S+ failed: /);
    const [json] = jsonLines((await cli(['cron', 'list', '--json'], remote)).out);
    expect(json).toMatchObject({ name: 'tick', queue: 'cron', lastOutcome: 'failed' });
    expect(json).not.toHaveProperty('job');

    const before = sink.requests.length;
    const run = await cli(['cron', 'run', 'tick', '--url', server.url], {});
    expect(run.err).toBe('');
    expect(run.out).toMatch(/^tick: task cron-tick-run-\d{8}T\d{9}Z added\n$/);
    await sink.waitFor(before + 1);
    // Audited as the caller of the admin route (access control off: anonymous), from REST.
    const [entry] = await t.service.auditLog.list({ limit: 1, actions: ['cron_run'] });
    expect(entry).toMatchObject({ action: 'cron_run', target: run.out.split(' ')[2], source: 'rest' });

    const unknown = await cli(['cron', 'run', 'nope'], remote);
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toContain('no cron job named "nope"');
  } finally {
    await server.close();
  }
});
