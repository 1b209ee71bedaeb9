import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_PARAMETERS, type RetryParameters } from '../../src/core/queue-config.js';
import { mayRetry, retryBackoffSeconds } from '../../src/core/retry-backoff.js';

const params = (overrides: Partial<RetryParameters>): RetryParameters => ({
  ...DEFAULT_RETRY_PARAMETERS,
  ...overrides,
});

describe('retryBackoffSeconds', () => {
  it("doubles max-doublings times, then grows linearly, capped (App Engine's documented example)", () => {
    const p = params({ minBackoffSeconds: 10, maxBackoffSeconds: 300, maxDoublings: 3 });
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryBackoffSeconds(n, p))).toEqual([
      10, 20, 40, 80, 160, 240, 300, 300,
    ]);
  });

  it('is linear with no doublings', () => {
    const p = params({ minBackoffSeconds: 10, maxBackoffSeconds: 1000, maxDoublings: 0 });
    expect([1, 2, 3, 4].map((n) => retryBackoffSeconds(n, p))).toEqual([10, 20, 30, 40]);
  });

  it('settles at the cap with the defaults and never overflows', () => {
    expect(retryBackoffSeconds(1, DEFAULT_RETRY_PARAMETERS)).toBe(0.1);
    expect(retryBackoffSeconds(2, DEFAULT_RETRY_PARAMETERS)).toBe(0.2);
    expect(retryBackoffSeconds(100, DEFAULT_RETRY_PARAMETERS)).toBe(3600);
    expect(retryBackoffSeconds(1_000_000, params({ maxDoublings: 63 }))).toBe(3600);
  });

  it('refuses a retry number below 1', () => {
    expect(() => retryBackoffSeconds(0, DEFAULT_RETRY_PARAMETERS)).toThrow(RangeError);
  });
});

describe('mayRetry', () => {
  it('retries forever with no limit', () => {
    expect(mayRetry(1_000, 1e9, null, DEFAULT_RETRY_PARAMETERS)).toBe(true);
  });

  it('allows retry-limit retries (limit + 1 attempts)', () => {
    expect(mayRetry(3, 0, 3, DEFAULT_RETRY_PARAMETERS)).toBe(true);
    expect(mayRetry(4, 0, 3, DEFAULT_RETRY_PARAMETERS)).toBe(false);
  });

  it('allows retries while the age limit holds', () => {
    const p = params({ ageLimitSeconds: 60 });
    expect(mayRetry(50, 60, null, p)).toBe(true);
    expect(mayRetry(1, 60.5, null, p)).toBe(false);
  });

  it('stops only when both limits are passed', () => {
    const p = params({ ageLimitSeconds: 60 });
    expect(mayRetry(10, 30, 3, p)).toBe(true);
    expect(mayRetry(2, 600, 3, p)).toBe(true);
    expect(mayRetry(10, 600, 3, p)).toBe(false);
  });
});
