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
