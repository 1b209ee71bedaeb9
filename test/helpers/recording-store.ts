import { systemClock, type Clock } from '../../src/core/clock.js';
import { noTaskEvents } from '../../src/core/task-events.js';
import { TaskQueue } from '../../src/core/task-queue.js';
import { DEFAULT_TOMBSTONE_RETENTION_MS } from '../../src/core/tombstone.js';
import type { TaskStore } from '../../src/core/task-store.js';

/**
 * The store seen through the TaskStore interface only, with every method
 * call recorded by name: what the core asks of its store, in order.
 */
export function recordingStore(store: TaskStore): { readonly store: TaskStore; readonly calls: string[] } {
  const calls: string[] = [];
  const recording = new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: recording, calls };
}

/** A queue handle over another store (a recording one): the same queue, its calls seen. */
export function queueOver(store: TaskStore, queue: TaskQueue, now: Clock = systemClock): TaskQueue {
  return new TaskQueue({
    store,
    config: queue.config,
    ref: { queueId: queue.id, queueName: queue.name },
    events: noTaskEvents,
    tombstoneRetentionMs: DEFAULT_TOMBSTONE_RETENTION_MS,
    now,
  });
}
