import { DEFAULT_PUSH_SETTINGS, defaultQueueConfig, type QueueConfig } from '../queue-config.js';

/** The queue a cron job without `queue` fires through. A queue file may define it (it must be a push queue) to set its rate. */
export const CRON_QUEUE_NAME = 'cron';

/**
 * The built-in cron queue: a push queue of 50 tasks per second with a
 * bucket of 250, so the most jobs a file may have (250) all firing at one
 * instant go out at once; no cap on requests in flight. Every process with
 * a cron file adds the same one, so it is nobody's definition: the queue
 * definitions' owner keeps it whether or not it has a cron file itself
 * (store/definitions/settle-queue-definitions.ts), and it counts in no fingerprint.
 */
export function builtInCronQueue(): QueueConfig {
  return {
    ...defaultQueueConfig(),
    name: CRON_QUEUE_NAME,
    push: { ...DEFAULT_PUSH_SETTINGS, ratePerSecond: 50, bucketSize: 250 },
  };
}
