/**
 * Resolves after `ms`, or at once when `signal` aborts (never rejects: a
 * loop that sleeps looks at its own stop flag when it wakes). The long-poll,
 * the worker runner's back-off and the cron scheduler all wait so.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}
