import { afterAll, expect, it } from 'vitest';
import { parseCronText } from '../../../src/config/load-cron-config.js';
import { openTaskQueue, type OpenTaskQueue } from '../../../src/open-task-queue.js';
import { serviceConfig } from '../../helpers/configs.js';
import { droppedAfterAll, testPgUrl } from '../../helpers/engines.js';
import { startSink } from '../../helpers/push-sink.js';

const schemaOf = droppedAfterAll();

const CRON = `
cron:
- name: minute
  url: /minute
  schedule: every 1 minutes
- name: flaky
  url: /flaky
  schedule: every 1 minutes
  retry_parameters:
    job_retry_limit: 2
    min_backoff_seconds: 1
    max_backoff_seconds: 1
`;

const services: OpenTaskQueue[] = [];
afterAll(async () => {
  for (const service of services) await service.close();
});

/**
 * The one proof on the real clock (PostgreSQL's now()): two services on one
 * database over three minutes of two `every 1 minutes` jobs, one of them
 * restarted in the middle. Three real minutes, because the grammar's
 * smallest interval is a minute and the point is that real processes racing
 * on the real clock still make one firing per instant.
 */
it('two services over three minutes: one delivery per minute, never two; a failing handler retried by the job; a restart fires nothing twice', { timeout: 240_000 }, async () => {
  const sink = await startSink((request) => ({ status: request.url === '/flaky' ? 500 : 200 }));
  const schema = schemaOf();
  const open = () =>
    openTaskQueue({
      config: serviceConfig([]),
      schema,
      database: { kind: 'postgres', url: testPgUrl(), poolSize: 3 },
      cleanupIntervalMs: 0,
      cron: parseCronText(CRON, 'cron.yaml', 'yaml'),
      pushBaseUrl: sink.url,
      pushSigning: false,
    });
  const a = await open();
  services.push(a);
  let b = await open();
  services.push(b);
  const started = Date.now();
  const instantsOf = (url: string) => sink.requests.filter((request) => request.url === url).map((request) => String(request.headers['x-cloudscheduler-scheduletime']));
  // Restart b at about 90 s: in the middle of an interval.
  await new Promise((resolve) => setTimeout(resolve, 90_000));
  await b.close();
  b = await open();
  services.push(b);
  // Three firings of each job, then time for the last one's retries and any duplicate to show.
  while (instantsOf('/minute').length < 3 && Date.now() - started < 200_000) await new Promise((resolve) => setTimeout(resolve, 500));
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  await sink.close();

  const minutes = instantsOf('/minute');
  expect(minutes.length).toBeGreaterThanOrEqual(3);
  expect(new Set(minutes).size).toBe(minutes.length);
  // Consecutive minutes: none skipped, none doubled.
  const times = minutes.map((at) => Date.parse(at)).sort((x, y) => x - y);
  for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(60_000);
  for (const at of times) expect(at % 60_000).toBe(0);
  // Each firing of the failing job: the first attempt and the job's two retries, no more.
  const flaky = instantsOf('/flaky');
  const perInstant = new Map<string, number>();
  for (const at of flaky) perInstant.set(at, (perInstant.get(at) ?? 0) + 1);
  expect([...perInstant.values()].slice(0, -1).every((n) => n === 3)).toBe(true);
  expect(Math.max(...perInstant.values())).toBeLessThanOrEqual(3);
  const jobs = await a.cronJobs();
  expect(jobs.find((job) => job.name === 'minute')?.lastOutcome).toBe('added');
});
