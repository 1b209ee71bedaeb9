import { now } from './rest-caller.js';
import { sleep } from './sleep.js';

/** Spaces requests of all clients together at `perSecond` (0 = no limit): each caller waits for its slot. */
export function pacer(perSecond: () => number): () => Promise<void> {
  let next = now();
  return async () => {
    const rate = perSecond();
    if (rate <= 0) return;
    const at = Math.max(next, now());
    next = at + 1000 / rate;
    const wait = at - now();
    if (wait > 0) await sleep(wait);
  };
}
