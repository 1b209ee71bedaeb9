import type { TaskEvents } from '../../src/core/task-events.js';

type EventName = keyof TaskEvents;

/** A TaskEvents that adds up every count it is told, per event and queue. */
export class CapturedEvents implements TaskEvents {
  readonly #counts = new Map<string, number>();

  #add(event: EventName, queue: string, count: number): void {
    const key = `${event}:${queue}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + count);
  }

  added(queue: string, count: number): void {
    this.#add('added', queue, count);
  }
  leased(queue: string, count: number): void {
    this.#add('leased', queue, count);
  }
  deleted(queue: string, count: number): void {
    this.#add('deleted', queue, count);
  }
  expired(queue: string, count: number): void {
    this.#add('expired', queue, count);
  }
  deadLettered(queue: string, count: number): void {
    this.#add('deadLettered', queue, count);
  }

  /** Every non-zero total as `{ 'event:queue': n }`. */
  totals(): Record<string, number> {
    return Object.fromEntries([...this.#counts].sort(([a], [b]) => a.localeCompare(b)));
  }
}
