import { describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { lastErrorMessage, MAX_LAST_ERROR_CHARS } from '../../src/core/last-error.js';
import { DEFAULT_RETRY_PARAMETERS } from '../../src/core/queue-config.js';
import { backoffDelayMs } from '../../src/core/worker/backoff-delay.js';
import { CompletionBatcher } from '../../src/core/worker/completion-batcher.js';
import { failureLease } from '../../src/core/failure-lease.js';
import { resolveWorkerOptions } from '../../src/core/worker/worker-options.js';

describe('worker rules without a database', () => {
  it('backs off by doubling from 100 ms up to the cap, with jitter in the upper half', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, 10_000, () => 1))).toEqual([100, 200, 400, 800]);
    expect(backoffDelayMs(1, 10_000, () => 0)).toBe(50);
    expect(backoffDelayMs(40, 10_000, () => 1)).toBe(10_000);
    expect(backoffDelayMs(40, 10_000, () => 0)).toBe(5_000);
  });

  it('keeps an error message, named when the name says more, bounded', () => {
    expect(lastErrorMessage(new Error('boom'))).toBe('boom');
    expect(lastErrorMessage(new TypeError('bad type'))).toBe('TypeError: bad type');
    expect(lastErrorMessage('plain text')).toBe('plain text');
    expect(lastErrorMessage({ code: 7 })).toBe('{"code":7}');
    expect(lastErrorMessage(new Error(''))).toBe('failed (no message)');
    const long = lastErrorMessage(new Error('y'.repeat(5000)));
    expect(long).toHaveLength(MAX_LAST_ERROR_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('sets a failed task lease to the backoff of its retry number', () => {
    const retry = { ...DEFAULT_RETRY_PARAMETERS, minBackoffSeconds: 10, maxBackoffSeconds: 300, maxDoublings: 3 };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => failureLease(n, retry, 'x', 'q').leaseMs / 1000)).toEqual([
      10, 20, 40, 80, 160, 240, 300, 300,
    ]);
    expect(() => failureLease(0, retry, 'x', 'q')).toThrow(/retryCount/);
  });

  it('refuses bad options with INVALID_REQUEST naming the option', () => {
    const code = (options: object) => {
      try {
        resolveWorkerOptions(options, 'q', { maxWaitMs: 60_000 });
        return 'ok';
      } catch (error) {
        return isQueueError(error) ? `${error.code} ${String(error.details.field)}` : 'other';
      }
    };
    expect(code({ concurrency: 1.5 })).toBe('INVALID_REQUEST concurrency');
    expect(code({ batchSize: 0 })).toBe('INVALID_REQUEST batchSize');
    expect(code({ leaseSeconds: 0 })).toBe('INVALID_REQUEST leaseSeconds');
    expect(code({ gracePeriodMs: -1 })).toBe('INVALID_REQUEST gracePeriodMs');
    const resolved = resolveWorkerOptions({ concurrency: 4, tag: 't', pollIntervalMs: 120_000 }, 'q', {
      maxWaitMs: 60_000,
    });
    expect(resolved).toMatchObject({
      concurrency: 4,
      batchSize: 4,
      groupByTag: true,
      pollIntervalMs: 60_000,
      leaseSeconds: 60,
      gracePeriodMs: 30_000,
    });
  });

  it('batches the deletes of handlers that finish in the same turn into one call', async () => {
    const calls: string[][] = [];
    const batcher = new CompletionBatcher<{ name: string; etaUsec: number; retryCount: number }>(async (held) => {
      calls.push(held.map((h) => h.task.name));
      return held.map((h) => h.task.name !== 'gone');
    });
    const held = (name: string) => ({ task: { name, etaUsec: 1, retryCount: 1 }, token: 1 });
    const results = await Promise.all(['a', 'b', 'gone'].map((name) => batcher.complete(held(name))));
    expect(calls).toEqual([['a', 'b', 'gone']]);
    expect(results).toEqual([true, true, false]);
  });
});
