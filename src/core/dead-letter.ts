/**
 * A task the retry limit took out of its queue, kept (payload and all) for
 * the dead-letter retention period so an operator can look at it and put it
 * back (`redrive`). Times are microseconds since the epoch, like a Task's.
 */
export interface DeadLetter {
  readonly name: string;
  readonly queueName: string;
  /** The payload, byte for byte as it was added. */
  readonly payload: Buffer;
  readonly tag: string | null;
  /** Leases the task had when it died (the queue's retry limit). */
  readonly retryCount: number;
  /** When the task was added. */
  readonly enqueuedUsec: number;
  /** When the retry limit dropped it. */
  readonly diedUsec: number;
}

/** Where a page of dead letters continues: the last dead letter of the previous page. */
export type DeadLetterRef = Pick<DeadLetter, 'name' | 'diedUsec'>;
