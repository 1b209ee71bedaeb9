import type { Context } from 'hono';

/**
 * What a batch hands each call it runs through the app (as Hono's `env`):
 * when the batch started. Long-poll leases of a batch measure their
 * `waitSecs` from then, not from when their turn came: the calls run 16 at
 * a time, so 1000 leases waiting 60 s each one after the other would hold
 * the client for an hour; measured from the batch's start, the batch waits
 * at most its longest `waitSecs`. A client cannot set this (it is not a
 * header or a parameter), so it can only ever shorten a batch's own waits.
 */
export interface BatchCallEnv {
  readonly batchStartedAt: number;
}

/** How long a lease asked to wait `waitMs` may still wait: all of it alone, what is left of it in a batch. */
export function remainingWaitMs(c: Context, waitMs: number, now: number = Date.now()): number {
  const startedAt = (c.env as Partial<BatchCallEnv> | undefined)?.batchStartedAt;
  if (typeof startedAt !== 'number') return waitMs;
  return Math.max(0, startedAt + waitMs - now);
}
