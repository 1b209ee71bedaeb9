import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateTaskName } from '../../src/core/generated-name.js';
import { leaseWithWait, MIN_ATTEMPT_INTERVAL_MS, WAIT_SLICE_MS } from '../../src/core/long-poll.js';
import { TaskQueueService } from '../../src/core/task-queue-service.js';
import type { LeaseResult, TaskLeaseParams, TaskStore } from '../../src/core/task-store.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { asTaskStore, InMemoryTaskStore } from './in-memory-task-store.js';

const DAY = 24 * 3600 * 1000;

/** The rules that read Node's clock, stepped over their boundaries through the clock seam and fake timers: no test waits. */
describe('the clock seam', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a generated name reads as deleted until exactly the retention period after its time', async () => {
    const store = new InMemoryTaskStore();
    const config = serviceConfig([pullQueue('q')]);
    const made = Date.UTC(2026, 0, 1);
    let now = made;
    const service = new TaskQueueService(asTaskStore(store), config, await store.syncQueues(config), {
      cleanupIntervalMs: 0,
      tombstoneRetentionMs: 7 * DAY,
      now: () => now,
    });
    const q = service.getQueue('q');
    const name = generateTaskName(made);

    // (An add checks the form on the database's clock, in its statement:
    // test/store/generated-name-holds.test.ts.)
    now = made + 7 * DAY - 1;
    await expect(q.getTask(name)).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
    now = made + 7 * DAY;
    await expect(q.getTask(name)).rejects.toMatchObject({ code: 'UNKNOWN_TASK' });
    expect((await q.add({ name })).name).toBe(name);
    // Deleted now, past its form's hold: the name gets a tombstone row like a chosen one.
    store.calls.length = 0;
    expect(await q.deleteTask(name)).toBe(true);
    await expect(q.getTask(name)).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
  });

  it('a long-poll tries again at least every wait slice and ends at its deadline, by the clock', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const waits: number[] = [];
    let leases = 0;
    const store = {
      waitForTasks: ({ timeoutMs }: { timeoutMs: number }) => {
        waits.push(timeoutMs);
        return new Promise<void>((resolve) => setTimeout(resolve, timeoutMs));
      },
    } as unknown as TaskStore;
    const params = {
      queueId: 1,
      queueName: 'q',
      leaseRate: null,
      filter: { kind: 'any' },
    } as unknown as TaskLeaseParams;
    const leaseOnce = async (): Promise<LeaseResult> => {
      leases++;
      return { tasks: [], paused: false, deadLettered: 0 };
    };
    const started = Date.now();
    const done = leaseWithWait(store, leaseOnce, params, { waitMs: 2500, signal: undefined, now: () => Date.now() });
    await vi.advanceTimersByTimeAsync(2499);
    let finished = false;
    void done.then(() => (finished = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(finished).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await done).tasks).toEqual([]);
    expect(Date.now() - started).toBe(2500);
    expect(waits).toEqual([WAIT_SLICE_MS, WAIT_SLICE_MS, 500]);
    expect(leases).toBe(4);
  });

  it('a burst of wake-ups cannot make it poll faster than the minimum interval', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    let leases = 0;
    // A store that says "tasks may have arrived" at once, every time.
    const store = { waitForTasks: async () => {} } as unknown as TaskStore;
    const params = {
      queueId: 1,
      queueName: 'q',
      leaseRate: null,
      filter: { kind: 'any' },
    } as unknown as TaskLeaseParams;
    const leaseOnce = async (): Promise<LeaseResult> => {
      leases++;
      return { tasks: [], paused: false, deadLettered: 0 };
    };
    const done = leaseWithWait(store, leaseOnce, params, { waitMs: 1000, signal: undefined, now: () => Date.now() });
    await vi.advanceTimersByTimeAsync(1000);
    await done;
    expect(leases).toBeLessThanOrEqual(1 + 1000 / MIN_ATTEMPT_INTERVAL_MS);
    expect(leases).toBeGreaterThanOrEqual(1000 / MIN_ATTEMPT_INTERVAL_MS - 1);
  });
});
