/** A task as the REST client hands it out: the in-process Task's shape, read from the REST answer. */
export interface ClientTask {
  readonly name: string;
  readonly queueName: string;
  readonly payload: Buffer;
  readonly tag: string | null;
  /** Leases so far: 1 after the first lease. */
  readonly retryCount: number;
  /** Its schedule time, or while leased its lease expiry: the lease token (microseconds since the epoch). */
  readonly etaUsec: number;
  readonly enqueuedUsec: number;
  /** The last failure a worker reported (the server's extension field), or null. */
  readonly lastError: string | null;
}

/** The REST representation of a task (discovery schema `Task`, plus `lastError`). */
export interface TaskJson {
  readonly id: string;
  readonly queueName: string;
  readonly payloadBase64?: string;
  readonly enqueueTimestamp: string;
  readonly leaseTimestamp: string;
  readonly retry_count: number;
  readonly tag?: string;
  readonly lastError?: string;
}

export function clientTask(json: TaskJson): ClientTask {
  return new RestTask(json);
}

/**
 * A task read from a REST answer. Its payload is decoded from base64 when
 * first read: a runner's handler that never looks at it (or reads only the
 * name) costs no decode, and the decode was the largest single cost per task
 * of the REST runner's process after the HTTP calls.
 */
class RestTask implements ClientTask {
  readonly name: string;
  readonly queueName: string;
  readonly tag: string | null;
  readonly retryCount: number;
  readonly etaUsec: number;
  readonly enqueuedUsec: number;
  readonly lastError: string | null;
  #base64: string;
  #payload: Buffer | null = null;

  constructor(json: TaskJson) {
    this.name = json.id;
    this.queueName = json.queueName.slice(json.queueName.lastIndexOf('/') + 1);
    this.tag = json.tag ?? null;
    this.retryCount = json.retry_count;
    this.etaUsec = Number(json.leaseTimestamp);
    this.enqueuedUsec = Number(json.enqueueTimestamp);
    this.lastError = json.lastError ?? null;
    this.#base64 = json.payloadBase64 ?? '';
  }

  get payload(): Buffer {
    if (this.#payload === null) {
      this.#payload = Buffer.from(this.#base64, 'base64');
      this.#base64 = '';
    }
    return this.#payload;
  }
}
