import type { Clock } from './clock.js';
import type { QueueConfig, TargetRoutes } from './queue-config.js';
import type { TaskEvents } from './task-events.js';
import type { QueueRef, TaskStore } from './task-store.js';

/**
 * What a queue's handle (TaskQueue) and its operator API (QueueOperations)
 * share, built once per queue by TaskQueueService.
 */
export interface QueueContext {
  readonly store: TaskStore;
  readonly config: QueueConfig;
  /** App Engine targets to base URLs (TASKQUEUE_TARGET_URLS): where a cron firing's job target goes; absent = unknown here. */
  readonly routes?: TargetRoutes;
  /** The queue's row id and name, as every store call takes them. */
  readonly ref: QueueRef;
  readonly events: TaskEvents;
  /** How long deleted names stay held (and generated names by their form). */
  readonly tombstoneRetentionMs: number;
  readonly now: Clock;
}
