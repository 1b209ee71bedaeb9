import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { mountConsole } from '../../../src/console/mount-console.js';
import { parseCronText } from '../../../src/config/load-cron-config.js';
import { createApp } from '../../../src/http/create-app.js';
import type { WiringOptions } from '../../../src/open-task-queue.js';
import { cli, jsonLines } from '../../cli/cli-harness.js';
import { serviceConfig } from '../../helpers/configs.js';
import { ENGINES, openTestService, testPgUrl, type TestEngine, type TestService } from '../../helpers/engines.js';
import { listen } from '../../http/harness.js';
import { FakeCronClock, until } from './fake-cron-clock.js';

const CRON = `
cron:
- name: tick
  url: /tick
  schedule: every 1 minutes
- name: fail
  url: /a/very/long/path/that/would/widen/a/phone/page/if/it/did/not/wrap/anywhere/at/all
  schedule: every day 10:00
`;

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/**
 * A service whose scheduler waits (the clock never moves), with the
 * firings' rows as delivery leaves them: a tombstone for a delivered
 * firing, a dead letter for one whose deliveries all failed, a task
 * for one being retried; and a longer job name's row the history skips.
 */
async function open(engine: TestEngine) {
  const clock = new FakeCronClock('2026-03-01T09:00:30Z');
  t = await openTestService(engine, serviceConfig([]), {
    open: {
      cron: parseCronText(CRON, 'cron.yaml', 'yaml'),
      dispatch: false,
      pushBaseUrl: 'http://127.0.0.1:9',
      cronClock: clock,
    } as WiringOptions,
  });
  await until(() => clock.waiting);
  const s = t.schema;
  const queue = `(select id from ${s}.queues where name = 'cron')`;
  await t.sql(
    `insert into ${s}.task_tombstones (queue_id, name, reason, retry_count, deleted_at) values
         (${queue}, 'cron-tick-20260301T090100Z', 'deleted', 1, '2026-03-01T09:01:01Z'),
         (${queue}, 'cron-tick-x-20260301T090200Z', 'deleted', 1, '2026-03-01T09:02:01Z'),
         (${queue}, 'cron-fail-20260227T100000Z', 'deleted', 1, '2026-02-27T10:00:01Z'),
         (${queue}, 'cron-fail-20260228T100000Z', 'retry_limit', 3, '2026-02-28T10:05:00Z')`,
  );
  await t.sql(
    `insert into ${s}.task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, died_at, last_error, last_status)
       values (${queue}, 'cron-fail-20260228T100000Z', null, '\\x'::bytea, 3, '2026-02-28T10:00:00Z', '2026-02-28T10:05:00Z', 'HTTP 502', 502)`,
  );
  const run = await t.service.runCronJob('fail');
  expect(run.outcome).toBe('added');
  await t.sql(`update ${s}.tasks set retry_count = 2, last_error = 'HTTP 503' where name = $1`, [run.task]);
  return { run, clock };
}

describe.each(ENGINES)('cron history (%s)', (engine) => {
  it("lists a job's firings newest first with their outcome, and the console marks the failing job", async () => {
    const { run, clock } = await open(engine);
    const fail = await t!.service.cronHistory('fail');
    expect(fail.map((entry) => [entry.task, entry.outcome, entry.attempts, entry.lastError, entry.run])).toEqual([
      [run.task, 'retrying', 2, 'HTTP 503', true],
      ['cron-fail-20260228T100000Z', 'failed', 3, 'HTTP 502', false],
      ['cron-fail-20260227T100000Z', 'delivered', 1, null, false],
    ]);
    expect(fail[1]!.instant.toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect((await t!.service.cronHistory('tick')).map((entry) => [entry.task, entry.outcome])).toEqual([
      ['cron-tick-20260301T090100Z', 'delivered'],
    ]);
    expect(await t!.service.cronHistory('fail', 1)).toHaveLength(1);
    await expect(t!.service.cronHistory('nope')).rejects.toMatchObject({ code: 'UNKNOWN_TASK' });

    await t!.sql(`update ${t!.schema}.cron_jobs set retired_at = now() where name = 'tick'`);
    const app = new Hono();
    const service = t!.service;
    const mounted = mountConsole(app, {
      service,
      auditLog: service.auditLog,
      cronJobs: () => service.cronJobs(),
      cron: {
        history: (name, limit) => service.cronHistory(name, limit),
        run: (name, who) => service.runCronJob(name, who),
      },
    });
    try {
      const list = await (await app.request('/console/cron')).text();
      // Failing first, marked; its status in failure words, not "added".
      expect(list).toMatch(/<tr data-job="fail" data-outcome="added" data-failing="true"[^>]*class="failing">/);
      expect(list.indexOf('data-job="fail"')).toBeLessThan(list.indexOf('data-job="tick"'));
      expect(list).toContain('delivery failed 2 times, last HTTP 503');
      expect(list).toMatch(/data-job="tick"[^>]*data-retired="true"/);
      expect(/data-job="tick"[\s\S]*?data-label="Next firings"><span class="hint">none: retired</.test(list)).toBe(
        true,
      );

      const page = await (await app.request('/console/cron/fail')).text();
      expect([...page.matchAll(/data-firing-outcome="([a-z]+)"><td/g)].map((m) => m[1])).toEqual([
        'retrying',
        'failed',
        'delivered',
      ]);
      expect(page).toContain('href="/console/queues/cron/dead-letters/cron-fail-20260228T100000Z"');
      expect(page).toContain('<span class="badge dead">failing</span>');
      const csrf = /name="_csrf" value="([^"]*)"/.exec(page)![1]!;
      clock.set('2026-03-01T09:00:31Z');
      const ran = await app.request('/console/cron/fail/run', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ _csrf: csrf }).toString(),
      });
      expect(ran.status).toBe(303);
      const task = decodeURIComponent(/\?ran=(.+)$/.exec(ran.headers.get('location')!)![1]!);
      expect(task).toMatch(/^cron-fail-run-/);
      const [entry] = await service.auditLog.list({ limit: 1, actions: ['cron_run'] });
      expect(entry).toMatchObject({ target: task, source: 'console' });
      expect(await (await app.request('/console/cron/nope')).text()).toContain('No such cron job');
    } finally {
      await mounted.close();
    }
  });
});

describe('cron history from the CLI', () => {
  it('cron history reads the database or a running server (--url)', async () => {
    const { run } = await open('postgres');
    const env = { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: t!.schema };
    const local = await cli(['cron', 'history', 'fail'], env);
    expect(local.code).toBe(1);
    expect(local.out.split('\n')[0]).toMatch(
      new RegExp(`^\\S+Z run retrying \\(delivery failed 2 times, last HTTP 503\\) ${run.task}$`),
    );
    expect(local.out).toContain('2026-02-28T10:00:00.000Z failed (delivery failed 3 times, last HTTP 502)');
    const server = await listen(createApp({ service: t!.service }));
    try {
      const remote = await cli(['cron', 'history', 'tick', '--json', '--url', server.url], {});
      expect(remote.err).toBe('');
      expect(remote.code).toBe(0);
      expect(jsonLines(remote.out)).toEqual([
        expect.objectContaining({
          task: 'cron-tick-20260301T090100Z',
          outcome: 'delivered',
          instant: '2026-03-01T09:01:00.000Z',
        }),
      ]);
    } finally {
      await server.close();
    }
  });
});
