import { describe, expect, it } from 'vitest';
import { parseLeaseRate } from '../../src/config/parse-lease-rate.js';
import { catchConfigError } from './catch-config-error.js';

describe('parseLeaseRate', () => {
  it.each([
    ['20/s', { calls: 20, windowSeconds: 1 }],
    ['1/s', { calls: 1, windowSeconds: 1 }],
    ['600/m', { calls: 600, windowSeconds: 60 }],
    ['5/h', { calls: 5, windowSeconds: 3600 }],
    ['1/d', { calls: 1, windowSeconds: 86400 }],
    ['010/s', { calls: 10, windowSeconds: 1 }],
    ['1000000/d', { calls: 1_000_000, windowSeconds: 86400 }],
  ])('parses %j', (text, rate) => {
    expect(parseLeaseRate(text)).toEqual(rate);
  });

  it('parses "unlimited" as null', () => {
    expect(parseLeaseRate('unlimited')).toBeNull();
  });

  it.each([
    [''],
    ['20'],
    ['/s'],
    ['20/'],
    ['20/x'],
    ['20/S'],
    ['20/sec'],
    ['20 / s'],
    ['1.5/s'],
    ['-1/s'],
    ['+1/s'],
    ['1e2/s'],
    ['Unlimited'],
    ['unlimited/s'],
    ['none'],
  ])('rejects %j', (text) => {
    const error = catchConfigError(() => parseLeaseRate(text));
    expect(error.message).toBe(`must be a rate such as "20/s", "600/m", "5/h" or "1/d", or "unlimited", got "${text}"`);
  });

  it.each([['0/s'], ['00/m'], ['99999999999999999999/s']])(
    'rejects %j, which allows no positive whole number of calls',
    (text) => {
      const error = catchConfigError(() => parseLeaseRate(text));
      expect(error.message).toBe(
        `must allow a positive whole number of calls (at most ${Number.MAX_SAFE_INTEGER}), got "${text}"`,
      );
    },
  );
});
