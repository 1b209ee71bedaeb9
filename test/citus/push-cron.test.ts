import { afterEach, describe, expect, it } from 'vitest';
import { parseCronText } from '../../src/config/load-cron-config.js';
import type { CronFiringOutcome } from '../../src/core/cron/cron-store.js';
import type { WiringOptions } from '../../src/open-task-queue.js';
import { FakeCronClock, until } from '../cron/fire/fake-cron-clock.js';
import { serviceConfig } from '../helpers/configs.js';
import { openTestService, type TestService } from '../helpers/engines.js';
import { pushQueue, startSink, type Sink } from '../helpers/push-sink.js';

/** Push dispatch and cron firing on the Citus coordinator, each delivering to a loopback sink. */
describe('push and cron on Citus', () => {
  let t: TestService | undefined;
  let sink: Sink | undefined;
  afterEach(async () => {
    await t?.close();
    await sink?.close();
    t = undefined;
    sink = undefined;
  });

  const left = async (test: TestService) =>
    (await test.sql<{ n: number }>(`select count(*)::int4 as n from ${test.schema}.tasks`))[0]!.n;

  it('delivers push tasks, retries a failed delivery, drops one at its retry limit to the dead letters and redrives it', async () => {
    let refuse = true;
    const answers = [500, 503];
    sink = await startSink((request, index) => {
      if (request.url === '/doomed') return { status: refuse ? 418 : 200 };
      return { status: request.url === '/flaky' ? (answers[index] ?? 200) : 200 };
    });
    const retry = { ageLimitSeconds: null, minBackoffSeconds: 0.1, maxBackoffSeconds: 0.1, maxDoublings: 0 };
    t = await openTestService('postgres', serviceConfig([pushQueue('hooks', sink.url, {}, { retry })]));
    const queue = t.service.getQueue('hooks');
    await queue.add({ name: 'flaky', url: '/flaky', payload: 'p' });
    await expect.poll(() => left(t!)).toBe(0);
    const flaky = sink.requests.filter((r) => r.url === '/flaky');
    expect(
      flaky.map((r) => [r.headers['x-appengine-taskretrycount'], r.headers['x-appengine-taskpreviousresponse']]),
    ).toEqual([
      ['0', undefined],
      ['1', '500'],
      ['2', '503'],
    ]);
    expect(flaky.every((r) => r.body.toString() === 'p' && r.headers['x-appengine-queuename'] === 'hooks')).toBe(true);
    await expect(queue.add({ name: 'flaky' })).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });

    await queue.add(Array.from({ length: 20 }, (_, i) => ({ name: `many-${i}`, url: '/many' })));
    await queue.add({ name: 'doomed', url: '/doomed', retryOptions: { taskRetryLimit: 1 } });
    await expect
      .poll(async () => (await t!.operate('hooks').listDeadLetters({ limit: 10 })).map((d) => d.name))
      .toEqual(['doomed']);
    await expect.poll(() => left(t!)).toBe(0);
    expect(
      new Set(sink.requests.filter((r) => r.url === '/many').map((r) => r.headers['x-appengine-taskname'])).size,
    ).toBe(20);
    refuse = false;
    expect(await t.operate('hooks').redrive()).toBe(1);
    await expect.poll(() => sink!.requests.filter((r) => r.url === '/doomed').length).toBe(3);
    await expect.poll(() => left(t!)).toBe(0);
    expect(await t.operate('hooks').listDeadLetters({ limit: 10 })).toEqual([]);
  });

  it('fires a cron.yaml job once per instant, recorded as its last firing', async () => {
    sink = await startSink();
    const clock = new FakeCronClock('2026-03-01T09:00:30Z');
    const outcomes: CronFiringOutcome[] = [];
    t = await openTestService('postgres', serviceConfig([]), {
      open: {
        cron: parseCronText('cron:\n- name: tick\n  url: /tick\n  schedule: every 1 minutes\n', 'cron.yaml', 'yaml'),
        pushBaseUrl: sink.url,
        pushSigning: false,
        cronClock: clock,
        cronEvents: { fired: (_job: string, outcome: CronFiringOutcome) => outcomes.push(outcome) },
      } as WiringOptions,
    });
    await until(() => clock.waiting);
    expect(sink.requests).toHaveLength(0);
    clock.set('2026-03-01T09:01:00.200Z');
    await until(() => sink!.requests.length === 1);
    await until(async () => clock.waiting && (await left(t!)) === 0);
    expect(outcomes).toEqual(['added']);
    const [tick] = sink.requests;
    expect([tick!.url, tick!.method, tick!.headers['x-appengine-cron'], tick!.headers['x-appengine-taskname']]).toEqual(
      ['/tick', 'GET', 'true', 'cron-tick-20260301T090100Z'],
    );
    const [job] = await t.service.cronJobs();
    expect(job).toMatchObject({ name: 'tick', lastOutcome: 'added', lastTask: 'cron-tick-20260301T090100Z' });
    // Fired once: the scheduler waits for the next instant, and nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.requests).toHaveLength(1);
  });
});
