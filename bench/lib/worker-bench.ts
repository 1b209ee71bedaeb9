import type { TaskQueue } from '../../src/core/task-queue.js';

/**
 * `queue.work` with a no-op handler at `concurrency` until `count` tasks
 * were processed (deleted); returns tasks/s. The queue must hold them.
 */
export async function benchWorker(
  queue: TaskQueue,
  count: number,
  concurrency: number,
  batchSize = concurrency,
): Promise<number> {
  let processed = 0;
  const started = performance.now();
  const worker = queue.work(() => {}, { concurrency, batchSize, leaseSeconds: 300, pollIntervalMs: 200 });
  await new Promise<void>((resolve) => {
    worker.on('processed', () => {
      if (++processed === count) resolve();
    });
  });
  const perSecond = count / ((performance.now() - started) / 1000);
  await worker.stop();
  return perSecond;
}
