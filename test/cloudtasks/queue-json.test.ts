import { describe, expect, it } from 'vitest';
import { burstSizeOf, parseUpdateMask, queueFromJson, queueJson } from '../../src/cloudtasks/queue-json.js';
import { isQueueError } from '../../src/core/errors.js';

/** Cloud Tasks v2's Queue over the queue model (src/cloudtasks/queue-json.ts). */
describe('the Queue resource', () => {
  const name = 'projects/p/locations/l/queues/q';

  it('reads a Queue over Cloud Tasks defaults and writes it back as given', () => {
    const body = {
      name,
      rateLimits: { maxDispatchesPerSecond: '2.5', maxConcurrentDispatches: 3, maxBurstSize: 999 },
      retryConfig: { maxAttempts: -1, maxRetryDuration: '0s', minBackoff: '1s', maxBackoff: '10s', maxDoublings: 3 },
      appEngineRoutingOverride: { service: 'worker' },
      state: 'PAUSED',
    };
    const config = queueFromJson(body, 'q', null, null);
    expect(config.maxLeases).toBeNull();
    expect(config.push).toMatchObject({ ratePerSecond: 2.5, bucketSize: 3, maxConcurrentRequests: 3 });
    expect(queueJson(config, { name, paused: false, enumsAsNumbers: false })).toEqual({
      name,
      appEngineRoutingOverride: { service: 'worker' },
      // maxBurstSize is output only: derived from the rate, whatever the request said.
      rateLimits: { maxDispatchesPerSecond: 2.5, maxBurstSize: 3, maxConcurrentDispatches: 3 },
      retryConfig: { maxAttempts: -1, maxRetryDuration: '0s', minBackoff: '1s', maxBackoff: '10s', maxDoublings: 3 },
      state: 'RUNNING',
    });
  });

  it('counts attempts in all: maxAttempts N is N - 1 retries; 0 is the default (100)', () => {
    expect(queueFromJson({ retryConfig: { maxAttempts: 1 } }, 'q', null, null).maxLeases).toBe(0);
    expect(queueFromJson({ retryConfig: { maxAttempts: 0 } }, 'q', null, null).maxLeases).toBe(99);
    expect(queueFromJson({}, 'q', null, null).maxLeases).toBe(99);
  });

  it('derives the burst from the rate: Cloud Tasks default 500/s gives 100', () => {
    expect([0.5, 1, 5, 99.5, 500].map(burstSizeOf)).toEqual([1, 1, 5, 100, 100]);
  });

  it('takes only the mask paths over the queue as it is, in both spellings', () => {
    const base = queueFromJson({}, 'q', null, null);
    const body = { rateLimits: { maxDispatchesPerSecond: 9 }, retryConfig: { maxAttempts: 4 } };
    const patched = queueFromJson(body, 'q', base, parseUpdateMask('retry_config.max_attempts'));
    expect(patched.maxLeases).toBe(3);
    expect(patched.push?.ratePerSecond).toBe(500);
    expect(parseUpdateMask('rateLimits.maxDispatchesPerSecond, retry_config')).toEqual([
      'rateLimits.maxDispatchesPerSecond',
      'retryConfig',
    ]);
  });

  it.each([
    [{ colour: 1 }, 'Unknown name "colour" at \'queue\''],
    [{ rateLimits: { maxTasks: 1 } }, 'Unknown name "maxTasks" at \'queue.rate_limits\''],
    [{ rateLimits: { maxDispatchesPerSecond: 0 } }, 'queue.rate_limits.max_dispatches_per_second'],
    [{ rateLimits: { maxConcurrentDispatches: 5001 } }, 'queue.rate_limits.max_concurrent_dispatches'],
    [{ retryConfig: { maxAttempts: -2 } }, 'queue.retry_config.max_attempts'],
    [{ retryConfig: { maxAttempts: 1.5 } }, 'queue.retry_config.max_attempts'],
    [{ retryConfig: { maxBackoff: '10' } }, 'queue.retry_config.max_backoff'],
    [{ retryConfig: { minBackoff: '20s', maxBackoff: '10s' } }, 'queue.retry_config.min_backoff'],
  ])('refuses %j naming the field', (body, words) => {
    let message = '';
    try {
      queueFromJson(body, 'q', null, null);
    } catch (error) {
      if (isQueueError(error, 'INVALID_REQUEST')) message = error.message;
    }
    expect(message).toContain(words);
  });

  it('refuses a mask path that is no updatable field', () => {
    expect(() => parseUpdateMask('name')).toThrow(/Invalid update_mask provided: "name"/);
  });
});
