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
  return {
    name: json.id,
    queueName: json.queueName.slice(json.queueName.lastIndexOf('/') + 1),
    payload: Buffer.from(json.payloadBase64 ?? '', 'base64'),
    tag: json.tag ?? null,
    retryCount: json.retry_count,
    etaUsec: Number(json.leaseTimestamp),
    enqueuedUsec: Number(json.enqueueTimestamp),
    lastError: json.lastError ?? null,
  };
}
