import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskQueueApiError, TaskQueueClient, type ClientTask, type TaskWorker } from '../../src/client/index.js';
import { LeaseLostError, WorkerStoppedError } from '../../src/core/worker/worker-errors.js';
import type { QueueConfig } from '../../src/core/queue-config.js';
import { ENGINES } from '../helpers/engines.js';
import { pullQueue } from '../helpers/configs.js';
import { listen, openHarness, type Harness } from '../http/harness.js';
import { deferred, waitFor } from '../worker/worker-harness.js';

const FAST_RETRY = { ageLimitSeconds: null, minBackoffSeconds: 0.2, maxBackoffSeconds: 1, maxDoublings: 2 };

describe.each(ENGINES)('the REST client and its worker on %s', (engine) => {
  let h: Harness;
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  const workers: TaskWorker<ClientTask>[] = [];
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
    await server?.close();
    await h?.close();
  });

  /** The server behind a reverse proxy's path prefix: the client's baseUrl carries the path. */
  const open = async (overrides: Partial<QueueConfig> = {}, clientFetch?: typeof fetch) => {
    h = await openHarness(engine, { queues: [pullQueue('q', { retry: FAST_RETRY, ...overrides })] });
    server = await listen(new Hono().route('/queues/api', h.app));
    const client = new TaskQueueClient({
      baseUrl: `${server.url}/queues/api/`,
      ...(clientFetch ? { fetch: clientFetch } : {}),
    });
    return { client, queue: client.queue('q'), core: h.t.service.getQueue('q') };
  };
  const start = (worker: TaskWorker<ClientTask>) => {
    workers.push(worker);
    return worker;
  };
  const remaining = async () =>
    (await h.t.sql<{ n: number }>(`select count(*)::int as n from ${h.t.schema}.tasks`))[0]!.n;

  it('inserts, leases, renews, deletes and batch-deletes; errors come typed', async () => {
    const { queue } = await open();
    const added = await queue.insert({ name: 'one', payload: 'hello', tag: 'greeting' });
    expect(added).toMatchObject({ name: 'one', queueName: 'q', tag: 'greeting', retryCount: 0, lastError: null });
    await queue.insert({ name: 'two', payload: new Uint8Array([1, 2]) });
    const leased = await queue.lease({ numTasks: 5, leaseSecs: 60 });
    expect(leased.map((task) => task.name).sort()).toEqual(['one', 'two']);
    expect(leased.find((task) => task.name === 'one')!.payload.toString()).toBe('hello');
    const first = leased.find((task) => task.name === 'one')!;
    const renewed = await queue.update('one', { leaseToken: first.etaUsec, newLeaseSeconds: 120 });
    expect(renewed.etaUsec).toBeGreaterThan(first.etaUsec);
    const stale = await queue
      .update('one', { leaseToken: first.etaUsec, newLeaseSeconds: 10 })
      .catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(TaskQueueApiError);
    expect(stale).toMatchObject({ status: 400, reason: 'leaseExpired', leaseLost: true });
    // A fenced batch delete with the stale token deletes nothing; with the current one it deletes.
    expect(await queue.batchDelete(['one'], [first.etaUsec])).toEqual({ deleted: [], notFound: ['one'] });
    expect(await queue.batchDelete(['one'], [renewed.etaUsec])).toEqual({ deleted: ['one'], notFound: [] });
    expect(await queue.delete('two')).toBe(true);
    expect(await queue.delete('two')).toBe(false);
    const missing = await queue.getTask('nope').catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404, reason: 'notFound' });
    const info = await queue.get();
    expect(info.retryParameters).toEqual({ minBackoffSeconds: 0.2, maxBackoffSeconds: 1, maxDoublings: 2 });
  });

  it('retries idempotent calls answered 503, waiting the Retry-After', async () => {
    let refusals = 2;
    const seen: number[] = [];
    const flaky: typeof fetch = async (input, init) => {
      seen.push(Date.now());
      if ((init?.method ?? 'GET') === 'GET' && refusals-- > 0) {
        return new Response(
          JSON.stringify({ error: { code: 503, message: 'busy', errors: [{ reason: 'backendError' }] } }),
          {
            status: 503,
            headers: { 'retry-after': '0' },
          },
        );
      }
      return fetch(input, init);
    };
    const { queue } = await open({}, flaky);
    await queue.insert({ name: 'x', payload: 'p' });
    expect((await queue.getTask('x')).name).toBe('x');
    expect(seen.length).toBe(4);
    refusals = 10;
    const failed = await queue.getTask('x').catch((error: unknown) => error);
    expect(failed).toMatchObject({ status: 503, reason: 'backendError', retryable: true, retryAfterSeconds: 0 });
  });

  it('work: runs every task with at most `concurrency` at once and deletes it', async () => {
    const { queue } = await open();
    for (let i = 0; i < 12; i++) await queue.insert({ name: `t${i}`, payload: String(i) });
    let running = 0;
    let most = 0;
    const seen: string[] = [];
    start(
      queue.work(
        async (task) => {
          running++;
          most = Math.max(most, running);
          seen.push(task.name);
          await new Promise((resolve) => setTimeout(resolve, 10));
          running--;
        },
        { concurrency: 3, pollIntervalMs: 1000 },
      ),
    );
    await waitFor(async () => (await remaining()) === 0, 'the queue to drain');
    expect(seen.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `t${i}`).sort());
    expect(most).toBe(3);
  });

  it('work: renews by tasks.update before the lease runs out', async () => {
    const { queue, core } = await open();
    await queue.insert({ name: 'slow', payload: 's' });
    const renewed: string[] = [];
    const finish = deferred();
    start(queue.work(() => finish.promise, { leaseSeconds: 1 }).on('renewed', (task) => renewed.push(task.name)));
    await waitFor(() => renewed.length >= 3, 'three renewals');
    expect(await core.leaseTasks({ lease: 60, maxTasks: 1 })).toEqual([]);
    finish.resolve();
    await waitFor(async () => (await remaining()) === 0, 'the delete');
  });

  it('work: a lost lease aborts the signal and the late success deletes nothing', async () => {
    const { queue, core } = await open();
    await queue.insert({ name: 'contested', payload: 'c' });
    const started = deferred<AbortSignal>();
    const finish = deferred();
    start(
      queue.work(
        async (_task, { signal }) => {
          started.resolve(signal);
          await finish.promise;
        },
        { leaseSeconds: 2 },
      ),
    );
    const signal = await started.promise;
    await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '1 second'`);
    const [other] = await core.leaseTasks({ lease: 300, maxTasks: 1 });
    await waitFor(() => signal.aborted, 'the signal to abort');
    expect(signal.reason).toBeInstanceOf(LeaseLostError);
    finish.resolve();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await core.getTask('contested')).etaUsec).toBe(other!.etaUsec);
  });

  it('work: a failure comes back after the backoff with its last error; the retry limit keeps it in the dead letters', async () => {
    const { queue, core } = await open({
      maxLeases: 2,
      retry: { ageLimitSeconds: null, minBackoffSeconds: 2, maxBackoffSeconds: 10, maxDoublings: 3 },
    });
    await queue.insert({ name: 'flaky', payload: 'f' });
    const attempts: { retryCount: number; lastError: string | null }[] = [];
    start(
      queue.work(
        (task) => {
          attempts.push({ retryCount: task.retryCount, lastError: task.lastError });
          throw new Error(`failure ${attempts.length}`);
        },
        { pollIntervalMs: 300 },
      ),
    );
    await waitFor(async () => (await core.getTask('flaky')).lastError === 'failure 1', 'the first failure');
    const [row] = await h.t.sql<{ wait: number }>(
      `select extract(epoch from eta - now())::float8 as wait from ${h.t.schema}.tasks`,
    );
    expect(row!.wait).toBeGreaterThan(1);
    expect(row!.wait).toBeLessThanOrEqual(2);
    await h.t.sql(`update ${h.t.schema}.tasks set eta = now()`);
    await waitFor(async () => (await core.getTask('flaky')).lastError === 'failure 2', 'the second failure');
    await h.t.sql(`update ${h.t.schema}.tasks set eta = now()`);
    await waitFor(async () => (await h.t.operate('q').listDeadLetters({ limit: 5 })).length === 1, 'the dead letter');
    expect((await h.t.operate('q').listDeadLetters({ limit: 5 }))[0]).toMatchObject({
      name: 'flaky',
      retryCount: 2,
      lastError: 'failure 2',
    });
    expect(attempts).toEqual([
      { retryCount: 1, lastError: null },
      { retryCount: 2, lastError: 'failure 1' },
    ]);
  });

  it('work: stop() finishes handlers within the grace, then aborts and releases the rest', async () => {
    const { queue, core } = await open();
    await queue.insert({ name: 'quick', payload: 'q' });
    await queue.insert({ name: 'stuck', payload: 's' });
    const signals = new Map<string, AbortSignal>();
    const release = deferred();
    const worker = start(
      queue.work(
        async (task, { signal }) => {
          signals.set(task.name, signal);
          if (task.name === 'quick') await release.promise;
          else await new Promise(() => {});
        },
        { concurrency: 2, gracePeriodMs: 400 },
      ),
    );
    await waitFor(() => signals.size === 2, 'both handlers');
    const stopped = worker.stop();
    setTimeout(() => release.resolve(), 50);
    await stopped;
    expect(worker.heldCount).toBe(0);
    expect(signals.get('stuck')!.reason).toBeInstanceOf(WorkerStoppedError);
    expect((await core.leaseTasks({ lease: 60, maxTasks: 5 })).map((task) => task.name)).toEqual(['stuck']);
    // Released by tasks.update with a lease of 0: a consumer's act, not an operator's.
    expect(await h.t.sql(`select action from ${h.t.schema}.audit_log`)).toEqual([]);
  });

  it('work: past the grace every running handler is aborted and its task released, whatever the handler does then', async () => {
    // A long backoff: a task handed back as failed would stay away for 30 s instead of being leasable at once.
    const { queue, core } = await open({
      retry: { ageLimitSeconds: null, minBackoffSeconds: 30, maxBackoffSeconds: 60, maxDoublings: 1 },
    });
    await queue.insert({ name: 'resolves', payload: 'r' });
    await queue.insert({ name: 'rejects', payload: 'j' });
    const signals = new Map<string, AbortSignal>();
    const outcomes: string[] = [];
    const worker = start(
      queue.work(
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
      ),
    );
    worker
      .on('processed', (task) => outcomes.push(`processed ${task.name}`))
      .on('failed', (task) => outcomes.push(`failed ${task.name}`));
    await waitFor(() => signals.size === 2, 'two handlers');
    await worker.stop();
    expect(worker.heldCount).toBe(0);
    for (const signal of signals.values()) expect(signal.reason).toBeInstanceOf(WorkerStoppedError);
    const again = await core.leaseTasks({ lease: 60, maxTasks: 10 });
    expect(again.map((task) => [task.name, task.lastError]).sort()).toEqual([
      ['rejects', null],
      ['resolves', null],
    ]);
    expect(outcomes).toEqual([]);
  });

  it('work: a task whose delete is in flight when the grace ends is let be deleted, not raced by a release', async () => {
    const deleteArrived = deferred();
    const letDeleteGo = deferred();
    const holdingDeletes: typeof fetch = async (input, init) => {
      if (String(input).includes(':batchDelete')) {
        deleteArrived.resolve();
        await letDeleteGo.promise;
      }
      return fetch(input, init);
    };
    const { queue, core } = await open({}, holdingDeletes);
    await queue.insert({ name: 'quick', payload: 'q' });
    await queue.insert({ name: 'stuck', payload: 's' });
    const signals = new Map<string, AbortSignal>();
    const finishQuick = deferred();
    const outcomes: string[] = [];
    const worker = start(
      queue.work(
        async (task, { signal }) => {
          signals.set(task.name, signal);
          if (task.name === 'quick') await finishQuick.promise;
          else await new Promise(() => {});
        },
        { concurrency: 2, leaseSeconds: 60, gracePeriodMs: 300 },
      ),
    );
    worker
      .on('processed', (task) => outcomes.push(`processed ${task.name}`))
      .on('lease-lost', (task) => outcomes.push(`lost ${task.name}`));
    await waitFor(() => signals.size === 2, 'both handlers');
    const stopped = worker.stop();
    finishQuick.resolve();
    await deleteArrived.promise;
    // The grace ends with quick's delete in flight and stuck still running.
    await waitFor(() => signals.get('stuck')!.aborted, 'the end of the grace');
    letDeleteGo.resolve();
    await stopped;
    expect(worker.heldCount).toBe(0);
    expect(signals.get('quick')!.aborted).toBe(false);
    expect(outcomes).toEqual(['processed quick']);
    expect((await core.leaseTasks({ lease: 60, maxTasks: 5 })).map((task) => task.name)).toEqual(['stuck']);
  });

  it('work: a network outage in the middle backs off and recovers with no task lost', async () => {
    let down = false;
    const unreliable: typeof fetch = async (input, init) => {
      if (down) throw new TypeError('fetch failed');
      return fetch(input, init);
    };
    const { queue } = await open({}, unreliable);
    for (let i = 0; i < 20; i++) await queue.insert({ name: `t${i}`, payload: 'p' });
    const seen = new Set<string>();
    const states: string[] = [];
    start(
      queue
        .work(
          async (task) => {
            await new Promise((resolve) => setTimeout(resolve, 20));
            seen.add(task.name);
          },
          { concurrency: 2, pollIntervalMs: 300 },
        )
        .on('state', (state) => states.push(state)),
    );
    await waitFor(() => seen.size >= 4, 'the first tasks');
    down = true;
    await waitFor(() => states.includes('unavailable'), 'the outage to be noticed');
    await new Promise((resolve) => setTimeout(resolve, 800));
    down = false;
    await waitFor(async () => (await remaining()) === 0, 'the queue to drain');
    expect(seen.size).toBe(20);
    expect(states.slice(0, 2)).toEqual(['unavailable', 'running']);
  });
});
