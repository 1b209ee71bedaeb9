import { afterEach, describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import type { QueueConfig } from '../../src/core/queue-config.js';
import type { Task } from '../../src/core/task.js';
import type { TaskQueue } from '../../src/core/task-queue.js';
import type { TaskEvents } from '../../src/core/task-events.js';
import { LeaseLostError, WorkerStoppedError } from '../../src/core/worker/worker-errors.js';
import type { TaskWorker } from '../../src/core/worker/task-worker.js';
import { ServiceMetrics } from '../../src/ops/service-metrics.js';
import { silentLogger } from '../../src/core/logger.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { capturingLogger, deferred, waitFor } from './worker-harness.js';

const FAST_RETRY = { ageLimitSeconds: null, minBackoffSeconds: 0.2, maxBackoffSeconds: 1, maxDoublings: 2 };

describe.each(ENGINES)('queue.work on %s', (engine) => {
  let t: TestService;
  const workers: TaskWorker<Task>[] = [];
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
    await t?.close();
  });

  const open = async (overrides: Partial<QueueConfig> = {}, events?: TaskEvents) => {
    t = await openTestService(
      engine,
      serviceConfig([pullQueue('q', { retry: FAST_RETRY, ...overrides })]),
      events ? { events } : {},
    );
    return t.service.getQueue('q');
  };
  const start = (q: TaskQueue, ...args: Parameters<TaskQueue['work']>) => {
    const worker = q.work(...args);
    workers.push(worker);
    return worker;
  };
  const remaining = async () => (await t.sql<{ n: number }>(`select count(*)::int as n from ${t.schema}.tasks`))[0]!.n;

  it('runs every task once with at most `concurrency` at a time and deletes it on success', async () => {
    const q = await open();
    await q.add(Array.from({ length: 40 }, (_, i) => ({ name: `t${i}`, payload: String(i) })));
    let running = 0;
    let most = 0;
    let mostHeld = 0;
    const seen: string[] = [];
    const worker = start(
      q,
      async (task) => {
        running++;
        most = Math.max(most, running);
        mostHeld = Math.max(mostHeld, worker.heldCount);
        seen.push(task.payload.toString());
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
      },
      { concurrency: 4, batchSize: 3, pollIntervalMs: 200 },
    );
    await waitFor(async () => (await remaining()) === 0, 'the queue to drain');
    expect(seen.sort()).toEqual(Array.from({ length: 40 }, (_, i) => String(i)).sort());
    expect(most).toBe(4);
    // Never more held than concurrency plus one batch.
    expect(mostHeld).toBeLessThanOrEqual(4 + 3);
    await worker.stop();
    expect(worker.state).toBe('stopped');
  });

  it('long-polls an empty queue: a task added later is taken at once, without polling', async () => {
    const q = await open();
    const done = deferred<string>();
    start(q, (task) => done.resolve(task.name), { pollIntervalMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const added = Date.now();
    await q.add({ name: 'late' });
    expect(await done.promise).toBe('late');
    // Well before the 10 s poll interval, with room for a busy machine.
    expect(Date.now() - added).toBeLessThan(8_000);
  });

  it('takes only the given tag', async () => {
    const q = await open();
    await q.add([
      { name: 'a', tag: 'red' },
      { name: 'b', tag: 'blue' },
      { name: 'c', tag: 'red' },
    ]);
    const seen: string[] = [];
    start(q, (task) => void seen.push(task.name), { tag: 'red', pollIntervalMs: 200 });
    await waitFor(() => seen.length === 2, 'the red tasks');
    expect(seen.sort()).toEqual(['a', 'c']);
    expect((await q.getTask('b')).retryCount).toBe(0);
  });

  it('renews a running task before its lease runs out, with the lease token', async () => {
    const q = await open();
    await q.add({ name: 'slow' });
    const renewed: string[] = [];
    const finish = deferred();
    let signal: AbortSignal | undefined;
    const worker = start(
      q,
      async (_task, context) => {
        signal = context.signal;
        await finish.promise;
      },
      { leaseSeconds: 1 },
    ).on('renewed', (task) => renewed.push(task.name));
    await waitFor(() => renewed.length >= 3, 'three renewals of a one-second lease');
    // Past three of its one-second leases, nobody else can take it.
    expect(await q.leaseTasks({ lease: 60, maxTasks: 1 })).toEqual([]);
    expect((await q.getTask('slow')).retryCount).toBe(1);
    finish.resolve();
    await waitFor(async () => (await remaining()) === 0, 'the delete');
    expect(signal?.aborted).toBe(false);
    await worker.stop();
  });

  it('aborts the signal when a renewal finds the lease lost, and the late success deletes nothing', async () => {
    const q = await open();
    await q.add({ name: 'contested', payload: 'p' });
    const started = deferred<AbortSignal>();
    const finish = deferred();
    const lost: Error[] = [];
    start(
      q,
      async (_task, { signal }) => {
        started.resolve(signal);
        await finish.promise;
      },
      { leaseSeconds: 2 },
    ).on('lease-lost', (_task, reason) => lost.push(reason));
    const signal = await started.promise;
    // The lease runs out (backdated) and another consumer takes the task.
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    const [other] = await q.leaseTasks({ lease: 300, maxTasks: 1 });
    expect(other?.retryCount).toBe(2);
    await waitFor(() => signal.aborted, 'the handler signal to abort');
    expect(signal.reason).toBeInstanceOf(LeaseLostError);
    expect((signal.reason as Error).message).toMatch(/lease on task "contested" was lost/);
    finish.resolve();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The other holder still has it.
    expect((await q.getTask('contested')).etaUsec).toBe(other!.etaUsec);
    expect(lost).toHaveLength(1);
  });

  it('a success after the lease was taken over (before any renewal) deletes nothing', async () => {
    const q = await open();
    await q.add({ name: 'raced' });
    const started = deferred();
    const finish = deferred();
    const lost: string[] = [];
    start(
      q,
      async () => {
        started.resolve();
        await finish.promise;
      },
      { leaseSeconds: 60 },
    ).on('lease-lost', (task) => lost.push(task.name));
    await started.promise;
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    const [other] = await q.leaseTasks({ lease: 300, maxTasks: 1 });
    finish.resolve();
    await waitFor(() => lost.length === 1, 'the lease-lost event');
    expect((await q.getTask('raced')).etaUsec).toBe(other!.etaUsec);
  });

  it('hands a failure back for the backoff delay with its last error, and runs it again', async () => {
    const q = await open({
      retry: { ageLimitSeconds: null, minBackoffSeconds: 2, maxBackoffSeconds: 10, maxDoublings: 3 },
    });
    await q.add({ name: 'flaky' });
    const attempts: { retryCount: number; lastError: string | null | undefined }[] = [];
    const failed: unknown[] = [];
    start(
      q,
      (task) => {
        attempts.push({ retryCount: task.retryCount, lastError: task.lastError });
        if (attempts.length === 1) throw new Error('database said no');
      },
      { pollIntervalMs: 200 },
    ).on('failed', (_task, error) => failed.push(error));
    await waitFor(() => failed.length === 1, 'the failure');
    await waitFor(async () => (await q.getTask('flaky')).lastError !== null, 'the last error');
    const task = await q.getTask('flaky');
    expect(task.lastError).toBe('database said no');
    const [row] = await t.sql<{ wait: number }>(
      `select extract(epoch from eta - now())::float8 as wait from ${t.schema}.tasks where name = 'flaky'`,
    );
    // retry 1 waits min-backoff-seconds (2 s) from the failure.
    expect(row!.wait).toBeGreaterThan(1);
    expect(row!.wait).toBeLessThanOrEqual(2);
    expect((await q.listTasks())[0]?.lastError).toBe('database said no');
    // Backdate the backoff rather than wait it out.
    await t.sql(`update ${t.schema}.tasks set eta = now()`);
    await waitFor(async () => (await remaining()) === 0, 'the second run');
    expect(attempts).toEqual([
      { retryCount: 1, lastError: null },
      { retryCount: 2, lastError: 'database said no' },
    ]);
  });

  it('drops a task that keeps failing into the dead letters at the retry limit, with its last error', async () => {
    const q = await open({ maxLeases: 2 });
    await q.add({ name: 'doomed', payload: 'd' });
    let runs = 0;
    start(
      q,
      () => {
        runs++;
        throw new TypeError(`attempt ${runs} failed`);
      },
      { pollIntervalMs: 200 },
    );
    await waitFor(async () => (await t.operate('q').listDeadLetters({ limit: 10 })).length === 1, 'the dead letter');
    const [letter] = await t.operate('q').listDeadLetters({ limit: 10 });
    expect(letter).toMatchObject({ name: 'doomed', retryCount: 2, lastError: 'TypeError: attempt 2 failed' });
    expect(runs).toBe(2);
  });

  it('failTask does the same for consumers without the runner, and bounds the message', async () => {
    const q = await open();
    await q.add({ name: 'manual' });
    const [task] = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    const back = await q.failTask(task!, new Error('x'.repeat(5000)));
    expect(back.lastError).toHaveLength(1000);
    expect((await q.getTask('manual')).lastError).toBe(back.lastError);
    // An operator's release hands the task back with its last error too.
    expect((await t.operate('q').releaseLease('manual')).task.lastError).toBe(back.lastError);
    // The old token no longer holds the lease.
    const stale = await q.failTask(task!, 'again').then(
      () => 'ok',
      (error: unknown) => (isQueueError(error) ? error.code : 'other'),
    );
    expect(stale).toBe('TASK_LEASE_EXPIRED');
  });

  it('stop() lets running handlers finish within the grace, then aborts and releases the rest', async () => {
    const q = await open();
    await q.add([{ name: 'quick' }, { name: 'stuck' }, { name: 'waiting' }]);
    const started = new Map<string, AbortSignal>();
    const release = deferred();
    const worker = start(
      q,
      async (task, { signal }) => {
        started.set(task.name, signal);
        if (task.name === 'quick') await release.promise;
        else await new Promise(() => {}); // ignores its signal
      },
      // The grace is what the stuck handler waits out; it must also hold the quick
      // handler's finish and delete, which on a busy machine can outlast the 350 ms a 400 ms grace left.
      { concurrency: 2, batchSize: 2, gracePeriodMs: 2_000 },
    );
    await waitFor(() => started.size === 2, 'two handlers');
    const stopped = worker.stop();
    setTimeout(() => release.resolve(), 50);
    await stopped;
    expect(worker.heldCount).toBe(0);
    const names = (await q.listTasks()).map((task) => task.name).sort();
    const stuck = [...started.keys()].find((name) => name !== 'quick')!;
    expect(names).toEqual(['stuck', 'waiting'].sort());
    expect(started.get(stuck)!.reason).toBeInstanceOf(WorkerStoppedError);
    // Released: leasable at once, by anyone.
    const again = await q.leaseTasks({ lease: 60, maxTasks: 10 });
    expect(again.map((task) => task.name).sort()).toEqual(['stuck', 'waiting']);
    // The holder handed its leases back (modifyTaskLease 0): a consumer's act, not an operator's.
    expect(await t.sql(`select action from ${t.schema}.audit_log`)).toEqual([]);
  });

  it('stop(): past the grace every running handler is aborted and its task released, whatever the handler does then', async () => {
    // A long backoff: a task handed back as failed would stay away for 30 s instead of being leasable at once.
    const q = await open({
      retry: { ageLimitSeconds: null, minBackoffSeconds: 30, maxBackoffSeconds: 60, maxDoublings: 1 },
    });
    await q.add([{ name: 'resolves' }, { name: 'rejects' }]);
    const signals = new Map<string, AbortSignal>();
    const outcomes: string[] = [];
    const worker = start(
      q,
      (task, { signal }) => {
        signals.set(task.name, signal);
        // Each ends in the same turn as its signal aborts: one as done, one with the abort's reason.
        return new Promise((resolve, reject) =>
          signal.addEventListener('abort', () =>
            task.name === 'resolves' ? resolve(null) : reject(signal.reason as Error),
          ),
        );
      },
      { concurrency: 2, leaseSeconds: 60, gracePeriodMs: 200 },
    );
    worker
      .on('processed', (task) => outcomes.push(`processed ${task.name}`))
      .on('failed', (task) => outcomes.push(`failed ${task.name}`));
    await waitFor(() => signals.size === 2, 'two handlers');
    await worker.stop();
    expect(worker.heldCount).toBe(0);
    for (const signal of signals.values()) expect(signal.reason).toBeInstanceOf(WorkerStoppedError);
    // Neither deleted nor handed back as a failure: both leasable at once, with no last error.
    const again = await q.leaseTasks({ lease: 60, maxTasks: 10 });
    expect(again.map((task) => [task.name, task.lastError]).sort()).toEqual([
      ['rejects', null],
      ['resolves', null],
    ]);
    expect(outcomes).toEqual([]);
  });

  it('backs off while the queue is paused, logging once, and resumes by itself', async () => {
    const q = await open();
    await q.add({ name: 'held-back' });
    await t.operate('q').pause();
    const logger = capturingLogger();
    const states: string[] = [];
    const seen: string[] = [];
    start(q, (task) => void seen.push(task.name), { pollIntervalMs: 100, logger }).on('state', (state) =>
      states.push(state),
    );
    await waitFor(() => states.includes('paused'), 'the paused state');
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(seen).toEqual([]);
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    await t.operate('q').resume();
    await waitFor(() => seen.length === 1, 'the task after the resume');
    expect(states).toEqual(['paused', 'running']);
    expect(logger.lines.map((line) => line.message)).toEqual([
      'worker: the queue is paused; backing off until it recovers',
      'worker: leasing again',
    ]);
  });

  it('counts processed, failed, renewed and lost in the service metrics', async () => {
    const metrics = new ServiceMetrics(silentLogger);
    const q = await open({}, metrics.events);
    await q.add([{ name: 'ok' }, { name: 'bad' }]);
    start(
      q,
      (task) => {
        if (task.name === 'bad') throw new Error('no');
      },
      { pollIntervalMs: 200 },
    );
    await waitFor(async () => (await q.getTask('bad').then((task) => task.lastError)) === 'no', 'the failure');
    await waitFor(async () => (await remaining()) === 1, 'the success');
    const text = await metrics.registry.metrics();
    expect(text).toContain('taskqueue_worker_tasks_processed_total{queue="q"} 1');
    expect(text).toContain('taskqueue_worker_tasks_failed_total{queue="q"} 1');
    expect(text).toMatch(/taskqueue_worker_handler_duration_seconds_count\{queue="q",outcome="processed"\} 1/);
  });

  it('refuses push queues and bad options', async () => {
    const q = await open();
    const code = (run: () => unknown) => {
      try {
        run();
        return 'ok';
      } catch (error) {
        return isQueueError(error) ? error.code : 'other';
      }
    };
    expect(code(() => q.work(() => {}, { concurrency: 0 }))).toBe('INVALID_REQUEST');
    expect(code(() => q.work(() => {}, { leaseSeconds: -1 }))).toBe('INVALID_REQUEST');
    expect(code(() => t.service.getQueue('default').work(() => {}))).toBe('INVALID_QUEUE_MODE');
  });
});

describe('closing the service (postgres)', () => {
  it('drains its workers first: a running handler finishes, then the database closes', async () => {
    const t = await openTestService('postgres', serviceConfig([pullQueue('q')]));
    try {
      const q = t.service.getQueue('q');
      await q.add([{ name: 'a' }]);
      const started = deferred();
      let finished = false;
      const worker = q.work(async () => {
        started.resolve();
        await new Promise((resolve) => setTimeout(resolve, 200));
        finished = true;
      });
      await started.promise;
      await t.service.close();
      expect(finished).toBe(true);
      expect(worker.state).toBe('stopped');
      const [row] = await t.sql<{ n: number }>(`select count(*)::int as n from ${t.schema}.tasks`);
      expect(row!.n).toBe(0);
    } finally {
      await t.close();
    }
  });
});
