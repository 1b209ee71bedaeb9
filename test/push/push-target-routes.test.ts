import { afterEach, describe, expect, it } from 'vitest';
import { parseCronText } from '../../src/config/load-cron-config.js';
import { parseQueueYaml } from '../../src/config/parse-queue-yaml.js';
import type { Logger } from '../../src/core/logger.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { startSink, type Sink } from '../helpers/push-sink.js';

/**
 * App Engine `target:` is routed by TASKQUEUE_TARGET_URLS (targetUrls): a
 * real app routing queues and cron jobs to three services sent all of them
 * to one URL, with no warning. A target with no route still goes to
 * TASKQUEUE_PUSH_BASE_URL, and the start log says so.
 */
describe.each(ENGINES)('push targets routed by TASKQUEUE_TARGET_URLS (%s)', (engine) => {
  let t: TestService | undefined;
  const sinks: Sink[] = [];
  afterEach(async () => {
    await t?.close();
    for (const sink of sinks.splice(0)) await sink.close();
    t = undefined;
  });
  const sink = async () => {
    const started = await startSink();
    sinks.push(started);
    return started;
  };

  it("delivers a queue's and a cron job's target to its route, the rest to the base URL, and warns of a target with no route", async () => {
    const [app, worker, reports] = [await sink(), await sink(), await sink()];
    const lines: { level: string; message: string }[] = [];
    const record = (level: string) => (_fields: object, message?: string) =>
      void lines.push({ level, message: message ?? '' });
    const logger: Logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
      child: () => logger,
    };
    const config = parseQueueYaml(
      'queue:\n- name: to-worker\n  rate: 100/s\n  target: v3.worker\n- name: unrouted\n  rate: 100/s\n  target: nowhere\n- name: plain\n  rate: 100/s\n',
      'queue.yaml',
    );
    const cron = parseCronText(
      'cron:\n- description: r\n  url: /report\n  schedule: every 24 hours\n  target: reports\n- description: m\n  url: /missing\n  schedule: every 24 hours\n  target: gone\n',
      'cron.yaml',
      'yaml',
    );
    t = await openTestService(engine, config, {
      open: {
        pushBaseUrl: app.url,
        targetUrls: new Map([
          ['worker', worker.url],
          ['reports', reports.url],
        ]),
        cron,
        logger,
      },
    });
    await t.service.getQueue('to-worker').add({ name: 'w', url: '/w' });
    await t.service.getQueue('unrouted').add({ name: 'u', url: '/u' });
    await t.service.getQueue('plain').add({ name: 'p', url: '/p' });
    // This process's own jobs: the list of recorded jobs may not have them yet (the scheduler records them as it starts).
    const jobs = cron.jobs;
    await t.service.runCronJob(jobs.find((job) => job.url === '/report')!.name);
    await t.service.runCronJob(jobs.find((job) => job.url === '/missing')!.name);
    await worker.waitFor(1);
    await reports.waitFor(1);
    await app.waitFor(3);
    expect(worker.requests.map((r) => r.url)).toEqual(['/w']);
    expect(reports.requests.map((r) => r.url)).toEqual(['/report']);
    expect(app.requests.map((r) => r.url).sort()).toEqual(['/missing', '/p', '/u']);

    const warnings = lines.filter((line) => line.level === 'warn').map((line) => line.message);
    expect(warnings).toContain(
      'queue unrouted: target "nowhere" has no route in TASKQUEUE_TARGET_URLS; its tasks go to TASKQUEUE_PUSH_BASE_URL',
    );
    expect(warnings.some((w) => w.includes('target "gone" has no route'))).toBe(true);
    expect(warnings.some((w) => w.includes('v3.worker'))).toBe(false);
    // The start log gives each queue's effective settings.
    expect(lines.map((line) => line.message)).toContain(
      `queue to-worker: push, rate 100/s, bucket size 5, max concurrent unlimited, target v3.worker to ${worker.url} (TASKQUEUE_TARGET_URLS), retries unlimited, backoff 0.1-3600 s, 16 doubling(s)`,
    );
    const overview = await t.service.overview(['to-worker']);
    expect(overview[0]?.push).toMatchObject({ target: 'v3.worker', targetUrl: worker.url });
  });

  it('delivers a cron firing by its target with no push base URL; an unrouted target is refused, and a stored one dead-lettered', async () => {
    const worker = await sink();
    const cron = parseCronText(
      'cron:\n- description: w\n  url: /work\n  schedule: every 24 hours\n  target: v2.worker\n- description: g\n  url: /gone\n  schedule: every 24 hours\n  target: gone\n',
      'cron.yaml',
      'yaml',
    );
    // No TASKQUEUE_PUSH_BASE_URL and no <target-url> on the cron queue: the routes are all there is.
    t = await openTestService(engine, parseQueueYaml('queue:\n- name: plain\n  mode: pull\n', 'queue.yaml'), {
      open: { pushBaseUrl: null, targetUrls: new Map([['worker', worker.url]]), cron },
    });
    // This process's own jobs (runNow needs no record of them yet).
    const jobs = cron.jobs;
    const fired = await t.service.runCronJob(jobs.find((job) => job.url === '/work')!.name);
    expect(fired).toMatchObject({ outcome: 'added', error: null });
    await worker.waitFor(1);
    expect(worker.requests.map((r) => r.url)).toEqual(['/work']);
    expect(worker.requests[0]!.headers['x-appengine-cron']).toBe('true');

    // A target with no route has nowhere to go: the firing fails, saying why.
    const refused = await t.service.runCronJob(jobs.find((job) => job.url === '/gone')!.name);
    expect(refused.outcome).toBe('failed');
    expect(refused.error).toContain('target "gone" has no route in TASKQUEUE_TARGET_URLS');

    // A firing stored with a target this process cannot route (another process's routes) goes to the dead letters, not nowhere.
    await t.operate('cron').pause();
    const held = await t.service.runCronJob(jobs.find((job) => job.url === '/work')!.name);
    await t.sql(`update ${t.schema}.tasks set push = jsonb_set(push, '{cron,target}', '"gone"') where name = $1`, [
      held.task,
    ]);
    await t.operate('cron').resume();
    await expect
      .poll(
        async () =>
          (await t!.sql<{ name: string }>(`select name from ${t!.schema}.task_dead_letters`)).map((r) => r.name),
        { timeout: 20_000 },
      )
      .toEqual([held.task]);
    const [dead] = await t.sql<{ last_error: string }>(`select last_error from ${t.schema}.task_dead_letters`);
    expect(dead!.last_error).toContain('nowhere to deliver');
    expect(worker.requests).toHaveLength(1);
  });
});
