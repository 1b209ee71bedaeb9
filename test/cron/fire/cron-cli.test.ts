import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseCronText } from '../../../src/config/load-cron-config.js';
import type { WiringOptions } from '../../../src/open-task-queue.js';
import { cli, jsonLines } from '../../cli/cli-harness.js';
import { serviceConfig } from '../../helpers/configs.js';
import { openTestService, testPgUrl, type TestService } from '../../helpers/engines.js';
import { startSink, type Sink } from '../../helpers/push-sink.js';
import { FakeCronClock, until } from './fake-cron-clock.js';

let t: TestService;
let sink: Sink;
let env: Record<string, string>;
const clock = new FakeCronClock('2026-03-01T09:00:30Z');

beforeAll(async () => {
  sink = await startSink();
  const cron = parseCronText('cron:\n- name: tick\n  url: /tick\n  schedule: every 1 minutes\n  timezone: Europe/Paris\n', 'cron.yaml', 'yaml');
  t = await openTestService('postgres', serviceConfig([]), { open: { cron, pushBaseUrl: sink.url, pushSigning: false, cronClock: clock } as WiringOptions });
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
  // An operator action: in the audit log, by the CLI's operator, naming the job's queue and the task.
  const [entry] = await t.service.auditLog.list({ limit: 10, actions: ['cron_run'] });
  expect(entry).toMatchObject({ action: 'cron_run', queue: 'cron', target: run.out.split(' ')[2], count: 1, source: 'cli' });
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
  const remote = await cli(['cron', 'list', '--url', 'http://127.0.0.1:9'], env);
  expect(remote.code).not.toBe(0);
  expect(remote.err).toContain('the cron commands work on the database');
});
