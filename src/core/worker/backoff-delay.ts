/** First back-off after a failed call, in ms; it doubles per failure in a row up to the cap. */
const FIRST_BACKOFF_MS = 100;

/**
 * Back-off before attempt `failures + 1` ("equal jitter"): half the
 * doubling delay plus a random share of the other half, so workers that
 * failed together do not come back together, and none comes back at once.
 */
export function backoffDelayMs(failures: number, capMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, FIRST_BACKOFF_MS * 2 ** Math.min(Math.max(failures - 1, 0), 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** The worker runner sleeps as the rest of the core does (abortable-sleep.ts). */
export { abortableSleep as sleep } from '../abortable-sleep.js';
