import { afterEach, describe, expect, it, vi } from 'vitest';
import { abortableSleep } from '../../src/core/abortable-sleep.js';

/** The core's one sleep (the long-poll, the worker's back-off, the cron scheduler), on fake timers: no test waits. */
describe('abortableSleep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after its time, not before', async () => {
    vi.useFakeTimers();
    let done = false;
    const sleeping = abortableSleep(1000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await sleeping;
    expect(done).toBe(true);
  });

  it('resolves at once when its signal aborts (or has aborted), and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const stop = new AbortController();
    let done = false;
    const sleeping = abortableSleep(60_000, stop.signal).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(done).toBe(false);
    stop.abort();
    await sleeping;
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    await abortableSleep(60_000, stop.signal);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a negative time is no wait', async () => {
    vi.useFakeTimers();
    const sleeping = abortableSleep(-5);
    await vi.advanceTimersByTimeAsync(0);
    await expect(sleeping).resolves.toBeUndefined();
  });
});
