import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { cronListLines } from '../../../src/cli/commands/cron-jobs.js';
import { mountConsole } from '../../../src/console/mount-console.js';
import { builtInCronQueue } from '../../../src/config/cron-queue.js';
import { parseCronText } from '../../../src/config/load-cron-config.js';
import type { CronFiringOutcome } from '../../../src/core/cron/cron-store.js';
import type { Logger } from '../../../src/core/logger.js';
import { openTaskQueue, type OpenTaskQueue, type WiringOptions } from '../../../src/open-task-queue.js';
import { serviceConfig } from '../../helpers/configs.js';
import {
  ENGINES,
  openTestService,
  testPGlite,
  testPgUrl,
  type TestEngine,
  type TestService,
} from '../../helpers/engines.js';
import { startSink, type Sink, type SunkRequest } from '../../helpers/push-sink.js';
import { FakeCronClock, until } from './fake-cron-clock.js';

const CRON = `
cron:
- name: tick
  url: /tick
  schedule: every 1 minutes
- name: fail
  url: /fail
  schedule: every day 10:00
  retry_parameters:
    job_retry_limit: 2
    min_backoff_seconds: 0.1
    max_backoff_seconds: 0.1
`;

interface LogLine {
  readonly level: string;
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

function captureLogger(lines: LogLine[]): Logger {
  const at =
    (level: string) =>
    (fields: object, message = '') =>
      lines.push({ level, fields: fields as Record<string, unknown>, message });
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

function header(request: SunkRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : value;
}

describe.each(ENGINES)('cron firing with a fixed clock (%s)', (engine: TestEngine) => {
  let t: TestService | undefined;
  let sink: Sink | undefined;
  const others: OpenTaskQueue[] = [];
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await t?.close();
    await sink?.close();
    t = undefined;
    sink = undefined;
  });

  /** Opens the service under test, and `another` opens more services on its schema (other processes, in effect). */
  async function open(clock: FakeCronClock, extra: Partial<WiringOptions> = {}, text = CRON) {
    sink = await startSink((request) => ({ status: request.url.startsWith('/fail') ? 500 : 200 }));
    const cron = parseCronText(text, 'cron.yaml', 'yaml');
    const outcomes: CronFiringOutcome[] = [];
    const base = {
      cron,
      pushBaseUrl: sink.url,
      pushSigning: false,
      cronEvents: { fired: (_job: string, outcome: CronFiringOutcome) => outcomes.push(outcome) },
    };
    t = await openTestService(engine, serviceConfig([]), {
      open: { ...base, cronClock: clock, ...extra } as WiringOptions,
    });
    const schema = t.schema;
    const another = async (otherClock: FakeCronClock, more: Partial<WiringOptions> = {}) => {
      const database =
        engine === 'postgres'
          ? { kind: 'postgres' as const, url: testPgUrl(), poolSize: 2 }
          : { kind: 'pglite-instance' as const, instance: await testPGlite() };
      const other = await openTaskQueue({
        config: serviceConfig([]),
        schema,
        database,
        cleanupIntervalMs: 0,
        ...base,
        cronClock: otherClock,
        ...more,
      });
      others.push(other);
      return other;
    };
    return { outcomes, another };
  }

  async function settled(clocks: FakeCronClock[], test: TestService): Promise<void> {
    await until(() => clocks.every((clock) => clock.waiting));
    // Delivered tasks are deleted: nothing left in the cron queue means every firing went out.
    await until(
      async () =>
        Number((await test.sql<{ n: unknown }>(`select count(*)::int4 as n from ${test.schema}.tasks`))[0]!.n) === 0,
    );
  }

  // The embedded engine takes 30-40 s here on a loaded 2-core machine (PostgreSQL: 3-5 s).
  it(
    'two services fire each instant once: a GET with the cron headers, named after job and instant, recorded as the last firing',
    { timeout: 150_000 },
    async () => {
      const a = new FakeCronClock('2026-03-01T09:00:30Z');
      const b = new FakeCronClock('2026-03-01T09:00:30Z');
      const { outcomes, another } = await open(a);
      await until(() => a.waiting);
      await another(b);
      await until(() => a.waiting && b.waiting);
      expect(sink!.requests).toHaveLength(0);

      for (const at of ['2026-03-01T09:01:00.200Z', '2026-03-01T09:02:00Z', '2026-03-01T09:03:05Z']) {
        a.set(at);
        b.set(at);
        await settled([a, b], t!);
      }
      const ticks = sink!.requests.filter((request) => request.url === '/tick');
      expect(ticks.map((request) => header(request, 'X-CloudScheduler-ScheduleTime'))).toEqual([
        '2026-03-01T09:01:00.000Z',
        '2026-03-01T09:02:00.000Z',
        '2026-03-01T09:03:00.000Z',
      ]);
      const first = ticks[0]!;
      expect(first.method).toBe('GET');
      expect(header(first, 'X-Appengine-Cron')).toBe('true');
      expect(header(first, 'X-CloudScheduler')).toBe('true');
      expect(header(first, 'X-CloudScheduler-JobName')).toBe('tick');
      expect(header(first, 'X-AppEngine-QueueName')).toBe('__cron');
      expect(header(first, 'X-CloudTasks-QueueName')).toBe('__cron');
      expect(header(first, 'X-AppEngine-TaskName')).toBe('cron-tick-20260301T090100Z');
      // Three firings: each added by one service and met as already added by the other.
      expect(outcomes.filter((outcome) => outcome === 'added')).toHaveLength(3);
      expect(outcomes.filter((outcome) => outcome === 'already_added')).toHaveLength(3);

      const jobs = await t!.service.cronJobs();
      const tick = jobs.find((job) => job.name === 'tick')!;
      expect(tick).toMatchObject({
        schedule: 'every 1 minutes',
        timezone: 'UTC',
        queue: 'cron',
        lastOutcome: 'added',
        lastTask: 'cron-tick-20260301T090300Z',
      });
      expect(tick.lastInstant?.toISOString()).toBe('2026-03-01T09:03:00.000Z');
      expect(jobs.map((job) => job.name)).toEqual(['fail', 'tick']);

      // The console's cron page lists them with next and last firing (access control off: everyone is an administrator).
      const app = new Hono();
      const mounted = mountConsole(app, {
        service: t!.service,
        auditLog: t!.service.auditLog,
        cronJobs: () => t!.service.cronJobs(),
      });
      try {
        const html = await (await app.request('/console/cron')).text();
        expect(html).toContain('href="/console/cron"');
        expect(html).toMatch(/<tr data-job="tick" data-outcome="added">/);
        expect(html).toContain('added cron-tick-20260301T090300Z');
        expect(html).toContain('every 1 minutes (UTC)');
        expect(html).toContain('datetime="2026-03-01T09:04:00.000Z"');
      } finally {
        await mounted.close();
      }
    },
  );

  it('an interval counted from the previous firing fires at the same instants in services started at different times', async () => {
    const a = new FakeCronClock('2026-03-01T09:00:30Z');
    const b = new FakeCronClock('2026-03-01T09:47:10Z');
    const { another } = await open(a, {}, 'cron:\n- name: slow\n  url: /slow\n  schedule: every 2 hours\n');
    await until(() => a.waiting);
    await another(b);
    await until(() => b.waiting);
    a.set('2026-03-01T11:00:00Z');
    b.set('2026-03-01T11:00:00Z');
    await settled([a, b], t!);
    expect(sink!.requests.map((request) => header(request, 'X-AppEngine-TaskName'))).toEqual([
      'cron-slow-20260301T110000Z',
    ]);
    const slow = (await t!.service.cronJobs())[0]!;
    expect(slow.next.map((at) => at.toISOString())).toEqual([
      '2026-03-01T13:00:00.000Z',
      '2026-03-01T15:00:00.000Z',
      '2026-03-01T17:00:00.000Z',
    ]);
  });

  it(
    'servers with different cron files: a job missing from one is retired, not deleted, so its chain holds and no instant fires twice',
    { timeout: 60_000 },
    async () => {
      const yaml = (...jobs: string[]) =>
        parseCronText(`cron:${jobs.length === 0 ? ' []' : ''}\n${jobs.join('')}`, 'cron.yaml', 'yaml');
      const tick = '- name: tick\n  url: /tick\n  schedule: every 1 minutes\n';
      const slow = '- name: slow\n  url: /slow\n  schedule: every 2 hours\n';
      const nightly = '- name: nightly\n  url: /nightly\n  schedule: every day 23:00\n';
      const a = new FakeCronClock('2026-03-01T09:00:30Z');
      const { another } = await open(a, {}, `cron:\n${tick}${slow}${nightly}`);
      await until(() => a.waiting);
      // A server from a newer file without `slow` and `nightly` (a rolling deploy) retires them and keeps their rows.
      const b = new FakeCronClock('2026-03-01T09:30:00Z');
      const newer = await another(b, { cron: yaml(tick) });
      await until(() => b.waiting);
      const jobsNow = async () =>
        (await newer.cronJobs()).map((job) => [job.name, job.retiredAt?.toISOString() ?? null]);
      expect(await jobsNow()).toEqual([
        ['nightly', '2026-03-01T09:30:00.000Z'],
        ['slow', '2026-03-01T09:30:00.000Z'],
        ['tick', null],
      ]);
      // A server from a file with `slow`, started after it, clears the mark and counts from the first server's anchor.
      const c = new FakeCronClock('2026-03-01T09:47:10Z');
      await another(c, { cron: yaml(tick, slow) });
      await until(() => c.waiting);
      expect((await jobsNow())[1]).toEqual(['slow', null]);
      for (const clock of [a, b, c]) clock.set('2026-03-01T11:00:00Z');
      await settled([a, b, c], t!);
      expect(
        sink!.requests
          .filter((request) => request.url === '/slow')
          .map((request) => header(request, 'X-AppEngine-TaskName')),
      ).toEqual(['cron-slow-20260301T110000Z']);
      // Retired again; then only the server with `slow` runs on, eight days, marking its jobs seen.
      const d = new FakeCronClock('2026-03-01T11:30:00Z');
      await another(d, { cron: yaml(tick) });
      await until(() => d.waiting);
      c.set('2026-03-09T11:00:00Z');
      await settled([c], t!);
      // A retired row goes only when no server has run it for RETIRED_CRON_JOB_DAYS: `nightly`, not `slow`.
      const e = new FakeCronClock('2026-03-09T12:00:00Z');
      await another(e, { cron: yaml(tick) });
      await until(() => e.waiting);
      expect(await jobsNow()).toEqual([
        ['slow', '2026-03-01T11:30:00.000Z'],
        ['tick', null],
      ]);
      // A server with an empty cron file retires every job.
      const f = new FakeCronClock('2026-03-09T12:30:00Z');
      await another(f, { cron: yaml() });
      await until(async () => (await jobsNow())[1]?.[1] !== null);
      expect(await jobsNow()).toEqual([
        ['slow', '2026-03-01T11:30:00.000Z'],
        ['tick', '2026-03-09T12:30:00.000Z'],
      ]);
      // cron list and the console say so.
      const listed = await newer.cronJobs();
      expect(cronListLines(listed[0]!)[0]).toContain(
        '(retired 2026-03-01T11:30:00.000Z: not in the cron file of the last server started)',
      );
      const app = new Hono();
      const mounted = mountConsole(app, { service: newer, auditLog: newer.auditLog, cronJobs: () => newer.cronJobs() });
      try {
        const html = await (await app.request('/console/cron')).text();
        expect(html).toMatch(/<tr data-job="slow" data-outcome="added" data-retired="true">/);
        expect(html).toContain('(retired <time');
      } finally {
        await mounted.close();
      }
    },
  );

  it('a failing firing is retried by the job retry parameters, then goes to the dead letters', async () => {
    const clock = new FakeCronClock('2026-03-01T09:59:59Z');
    await open(clock);
    await until(() => clock.waiting);
    clock.set('2026-03-01T10:00:00Z');
    await sink!.waitFor(3);
    await settled([clock], t!);
    const fails = sink!.requests.filter((request) => request.url === '/fail');
    expect(fails.map((request) => header(request, 'X-AppEngine-TaskRetryCount'))).toEqual(['0', '1', '2']);
    const dead = await t!.operate('cron').listDeadLetters({ limit: 10 });
    expect(dead.map((letter) => letter.name)).toEqual(['cron-fail-20260301T100000Z']);
  });

  it('firings missed while no process ran are counted at start and not replayed; a restart fires at the next instant only', async () => {
    const clock = new FakeCronClock('2026-03-01T09:00:30Z');
    await open(clock);
    await until(() => clock.waiting);
    clock.set('2026-03-01T09:01:00Z');
    await settled([clock], t!);
    expect(sink!.requests).toHaveLength(1);
    // Stop firing (as if the process went away) and come back four minutes later, mid-interval.
    await t!.service.close();
    const lines: LogLine[] = [];
    const later = new FakeCronClock('2026-03-01T09:05:30Z');
    const restarted = await openTaskQueue({
      config: serviceConfig([]),
      schema: t!.schema,
      database:
        engine === 'postgres'
          ? { kind: 'postgres', url: testPgUrl(), poolSize: 2 }
          : { kind: 'pglite-instance', instance: await testPGlite() },
      cleanupIntervalMs: 0,
      cron: parseCronText(CRON, 'cron.yaml', 'yaml'),
      pushBaseUrl: sink!.url,
      pushSigning: false,
      cronClock: later,
      logger: captureLogger(lines),
    });
    others.push(restarted);
    await until(() => later.waiting);
    expect(lines.find((line) => line.message.includes('missed'))?.fields).toMatchObject({ job: 'tick', missed: 4 });
    expect(sink!.requests).toHaveLength(1);
    later.set('2026-03-01T09:06:00Z');
    await settled([later], t!);
    expect(sink!.requests.map((request) => header(request, 'X-CloudScheduler-ScheduleTime'))).toEqual([
      '2026-03-01T09:01:00.000Z',
      '2026-03-01T09:06:00.000Z',
    ]);
  });

  it('cron run fires a job now, once, also from a service that has no cron file; a caller cannot send X-Appengine-Cron', async () => {
    const clock = new FakeCronClock('2026-03-01T09:00:30Z');
    await open(clock);
    await until(() => clock.waiting);
    const operator = new FakeCronClock('2026-03-01T09:00:40.123Z');
    const tool = await (async () => {
      const other = await openTaskQueue({
        config: serviceConfig([builtInCronQueue()]),
        schema: t!.schema,
        database:
          engine === 'postgres'
            ? { kind: 'postgres', url: testPgUrl(), poolSize: 2 }
            : { kind: 'pglite-instance', instance: await testPGlite() },
        cleanupIntervalMs: 0,
        cron: false,
        dispatch: false,
        pushBaseUrl: sink!.url,
        cronClock: operator,
      });
      others.push(other);
      return other;
    })();
    const fired = await tool.runCronJob('tick');
    expect((await tool.cronJobs()).find((job) => job.name === 'tick')?.lastError ?? null).toBeNull();
    expect(fired).toMatchObject({ job: 'tick', outcome: 'added', task: 'cron-tick-run-20260301T090040123Z' });
    await expect(tool.runCronJob('nope')).rejects.toMatchObject({ code: 'UNKNOWN_TASK' });
    // Audited as an operator action: by the application unless it names an operator; an unknown job is not.
    operator.set('2026-03-01T09:00:41Z');
    await tool.runCronJob('tick', { actor: 'ops@example.com', source: 'console' });
    expect(
      (await tool.auditLog.list({ limit: 10, actions: ['cron_run'] })).map((entry) => [
        entry.actor,
        entry.source,
        entry.queue,
        entry.target,
      ]),
    ).toEqual([
      ['ops@example.com', 'console', 'cron', 'cron-tick-run-20260301T090041000Z'],
      ['anonymous', 'api', 'cron', 'cron-tick-run-20260301T090040123Z'],
    ]);
    await t!.service
      .getQueue('cron')
      .add({ name: 'forged', method: 'GET', url: '/tick', headers: { 'X-Appengine-Cron': 'true' } });
    await settled([clock], t!);
    const byName = new Map(sink!.requests.map((request) => [header(request, 'X-AppEngine-TaskName'), request]));
    expect(header(byName.get('cron-tick-run-20260301T090040123Z')!, 'X-Appengine-Cron')).toBe('true');
    expect(header(byName.get('forged')!, 'X-Appengine-Cron')).toBeUndefined();
    const tick = (await tool.cronJobs()).find((job) => job.name === 'tick')!;
    expect(tick.lastTask).toBe('cron-tick-run-20260301T090041000Z');
    expect(tick.next.map((at) => at.toISOString())).toEqual([
      '2026-03-01T09:01:00.000Z',
      '2026-03-01T09:02:00.000Z',
      '2026-03-01T09:03:00.000Z',
    ]);
  });
});
