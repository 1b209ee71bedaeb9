import { describe, expect, it } from 'vitest';
import { TaskWorker } from '../../src/core/worker/task-worker.js';
import type { HeldLease, WorkerBackend, WorkerLeaseRequest, WorkerTask } from '../../src/core/worker/worker-backend.js';
import { resolveWorkerOptions, type WorkerOptions } from '../../src/core/worker/worker-options.js';

/** A queue in memory whose deletes answer only when the test says so. */
class ScriptedBackend implements WorkerBackend<WorkerTask> {
  readonly queueName = 'q';
  readonly leases: WorkerLeaseRequest[] = [];
  readonly deleted: string[] = [];
  /** Answers every delete call waiting, and those that come within a few turns. */
  async answerDeletes(): Promise<void> {
    for (let i = 0; i < 10; i++) {
      while (this.pendingDeletes.length > 0) this.pendingDeletes.shift()!();
      await turn();
    }
  }

  /** Delete calls waiting for their answer. */
  readonly pendingDeletes: (() => void)[] = [];
  /** How many tasks each lease call finds (the rest of the queue when the list runs out). */
  readonly answers: number[];
  #next = 0;

  constructor(
    public waiting: number,
    answers: number[] = [],
  ) {
    this.answers = answers;
  }

  async lease(request: WorkerLeaseRequest): Promise<WorkerTask[]> {
    this.leases.push(request);
    const count = Math.min(this.waiting, request.maxTasks, this.answers.shift() ?? Infinity);
    this.waiting -= count;
    // An empty queue: the long-poll waits (a fake answering at once would spin the runner in microtasks).
    if (count === 0) await new Promise((resolve) => setTimeout(resolve, request.waitMs));
    return Array.from({ length: count }, () => ({ name: `t${this.#next++}`, etaUsec: 1, retryCount: 1 }));
  }

  complete(held: readonly HeldLease<WorkerTask>[]): Promise<boolean[]> {
    return new Promise((resolve) =>
      this.pendingDeletes.push(() => {
        this.deleted.push(...held.map((h) => h.task.name));
        resolve(held.map(() => true));
      }),
    );
  }

  async renew(): Promise<number> {
    return 1;
  }
  async fail(): Promise<void> {}
  async release(): Promise<void> {}
  classify(): 'error' {
    return 'error';
  }
}

const options = (given: WorkerOptions) =>
  resolveWorkerOptions({ pollIntervalMs: 50, ...given }, 'q', { maxWaitMs: 60_000 });
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('the runner between its calls (no database)', () => {
  it('leases the next task while the finished one is being deleted, holding no more than concurrency plus one batch', async () => {
    const backend = new ScriptedBackend(5);
    let running = 0;
    let mostRunning = 0;
    const worker = new TaskWorker(
      backend,
      async () => {
        mostRunning = Math.max(mostRunning, ++running);
        await turn();
        running--;
      },
      options({ concurrency: 1, batchSize: 1, gracePeriodMs: 100 }),
    );
    let mostHeld = 0;
    for (let i = 0; i < 20 && backend.pendingDeletes.length === 0; i++) await turn();
    // t0 ran and its delete is in flight: the next lease went out beside it, and t1 ran meanwhile.
    for (let i = 0; i < 5; i++) await turn();
    mostHeld = Math.max(mostHeld, worker.heldCount);
    expect(backend.leases.length).toBe(2);
    expect(worker.heldCount).toBe(2);
    // Two held (concurrency 1 plus one batch of 1): no third lease until a delete answers.
    for (let i = 0; i < 5; i++) await turn();
    expect(backend.leases.length).toBe(2);
    for (let i = 0; i < 100 && backend.deleted.length < 5; i++) {
      backend.pendingDeletes.shift()?.();
      await turn();
      mostHeld = Math.max(mostHeld, worker.heldCount);
    }
    await backend.answerDeletes();
    await worker.stop();
    expect(backend.deleted).toEqual(['t0', 't1', 't2', 't3', 't4']);
    expect(mostHeld).toBeLessThanOrEqual(2);
    expect(mostRunning).toBe(1);
    expect(worker.heldCount).toBe(0);
  });

  it('asks for a long-poll only when the last lease came back short of a full batch', async () => {
    // Full, short, full, full, then empty (the queue ran dry).
    const backend = new ScriptedBackend(8, [2, 1, 2, 2]);
    const worker = new TaskWorker(backend, () => {}, options({ concurrency: 2, batchSize: 2, gracePeriodMs: 100 }));
    for (let i = 0; i < 100 && backend.leases.length < 6; i++) {
      backend.pendingDeletes.shift()?.();
      await turn();
    }
    await backend.answerDeletes();
    await worker.stop();
    // The first call knows nothing yet; after a full answer no wait; after a short or empty one, the poll interval.
    expect(backend.leases.slice(0, 6).map((lease) => lease.waitMs)).toEqual([50, 0, 50, 0, 0, 50]);
  });
});
