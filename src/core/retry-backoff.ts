import type { RetryParameters } from './queue-config.js';

/**
 * Seconds a task waits before retry `n` (1 for the first retry), App
 * Engine's formula: the delay doubles `maxDoublings` times from
 * `minBackoffSeconds`, then grows linearly by that last step, and is capped
 * at `maxBackoffSeconds`:
 * `min(max, min * 2^min(n-1, doublings) * max(1, n - doublings))`.
 * With min 10, max 300, doublings 3: 10, 20, 40, 80, 160, 240, 300, 300...
 * Push delivery and the worker runner share it, so a failed task comes back
 * on the same schedule whichever way it failed.
 */
export function retryBackoffSeconds(n: number, parameters: RetryParameters): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`retry number must be an integer >= 1, got ${String(n)}`);
  const { minBackoffSeconds, maxBackoffSeconds, maxDoublings } = parameters;
  const exponent = Math.min(n - 1, maxDoublings);
  const linearSteps = Math.max(1, n - exponent);
  // 2^exponent overflows to Infinity for huge doublings; min() then caps it.
  return Math.min(maxBackoffSeconds, minBackoffSeconds * 2 ** exponent * linearSteps);
}

/**
 * Whether a task that has failed `retries` times (the retry about to be
 * scheduled is number `retries`) and whose first attempt was `ageSeconds`
 * ago may be tried again. With both limits set the task stops only when
 * both are passed; with neither it retries forever (App Engine's stub,
 * `Retry.CanRetry`).
 */
export function mayRetry(
  retries: number,
  ageSeconds: number,
  retryLimit: number | null,
  parameters: RetryParameters,
): boolean {
  const { ageLimitSeconds } = parameters;
  if (retryLimit === null && ageLimitSeconds === null) return true;
  const withinCount = retryLimit !== null && retries <= retryLimit;
  const withinAge = ageLimitSeconds !== null && ageSeconds <= ageLimitSeconds;
  if (retryLimit !== null && ageLimitSeconds !== null) return withinCount || withinAge;
  return retryLimit !== null ? withinCount : withinAge;
}
