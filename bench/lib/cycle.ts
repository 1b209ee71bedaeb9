import { latency } from './stats.js';

/** Throughput of a lease + complete loop, and the latency of its lease calls. */
export interface CycleResult {
  readonly tasksPerSecond: number;
  readonly leaseP50Ms: number;
  readonly leaseP99Ms: number;
}

/** One system under test: lease up to `want` items, then complete (delete) them. */
export interface CycleDriver<Item> {
  lease(want: number): Promise<readonly Item[]>;
  complete(items: readonly Item[]): Promise<void>;
}

/**
 * `consumers` loops of lease(numTasks) + complete until `count` items are
 * done, the same loop for every system compared (ours, raw SQL, pg-boss), so
 * only the system differs. Stops early when the queue runs dry and no
 * consumer still holds items.
 */
export async function runCycle<Item>(
  driver: CycleDriver<Item>,
  count: number,
  numTasks: number,
  consumers: number,
): Promise<CycleResult> {
  let done = 0;
  let claimed = 0;
  const samples: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: consumers }, async () => {
      while (claimed < count) {
        const want = Math.min(numTasks, count - claimed);
        claimed += want;
        const t0 = performance.now();
        const items = await driver.lease(want);
        samples.push(performance.now() - t0);
        claimed -= want - items.length;
        if (items.length === 0) {
          if (claimed <= done) return;
          await new Promise((resolve) => setTimeout(resolve, 1));
          continue;
        }
        await driver.complete(items);
        done += items.length;
      }
    }),
  );
  const { p50, p99 } = latency(samples);
  return { tasksPerSecond: done / ((performance.now() - started) / 1000), leaseP50Ms: p50, leaseP99Ms: p99 };
}

/** `producers` loops adding batches of `batch` (100) until `count` items are added; returns items/s. */
export async function runAdd(
  count: number,
  producers: number,
  addBatch: (n: number) => Promise<unknown>,
  batch = 100,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: producers }, async () => {
      while (next < count) {
        const n = Math.min(batch, count - next);
        next += n;
        await addBatch(n);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}
