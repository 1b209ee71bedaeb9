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
  /** The last failure a worker reported for it (see TaskQueue.failTask), or null. */
  readonly lastError: string | null;
}

/**
 * A dead letter as operators' tools show it (the admin REST routes, the
 * CLI): JSON-ready, the payload in base64. One shape, so the CLI prints the
 * same whether it reads the database or a server.
 */
export interface DeadLetterRecord {
  readonly name: string;
  readonly tag: string | null;
  readonly retryCount: number;
  readonly enqueuedUsec: number;
  readonly diedUsec: number;
  readonly lastError: string | null;
  readonly payloadBase64: string;
}

export function deadLetterRecord(letter: DeadLetter): DeadLetterRecord {
  return {
    name: letter.name,
    tag: letter.tag,
    retryCount: letter.retryCount,
    enqueuedUsec: letter.enqueuedUsec,
    diedUsec: letter.diedUsec,
    lastError: letter.lastError,
    payloadBase64: letter.payload.toString('base64'),
  };
}

/** Where a page of dead letters continues: the last dead letter of the previous page. */
export type DeadLetterRef = Pick<DeadLetter, 'name' | 'diedUsec'>;
