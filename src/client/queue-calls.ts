import type { ClientTask } from './client-task.js';

/** Options of `lease`. */
export interface ClientLeaseOptions {
  readonly numTasks: number;
  readonly leaseSecs: number;
  readonly groupByTag?: boolean;
  /** With groupByTag: only this tag. */
  readonly tag?: string;
  /** Long-poll: wait up to this many seconds (at most 60) for tasks when none is leasable. */
  readonly waitSecs?: number;
  /** Ends the call (a long-poll's wait) while no answer has begun to come; an answer already coming is read, its tasks leased. */
  readonly signal?: AbortSignal;
}

/** The backoff parameters of a queue (the server's `retryParameters` extension of taskqueues.get). */
export interface ClientQueueInfo {
  readonly id: string;
  readonly maxLeases: number;
  readonly retryParameters?: {
    readonly minBackoffSeconds: number;
    readonly maxBackoffSeconds: number;
    readonly maxDoublings: number;
  };
}

/** The calls of one queue the REST worker runner makes (QueueClient has them). */
export interface QueueCalls {
  readonly name: string;
  get(): Promise<ClientQueueInfo>;
  lease(options: ClientLeaseOptions): Promise<ClientTask[]>;
  update(
    name: string,
    change: { leaseToken: number; newLeaseSeconds: number; lastError?: string },
  ): Promise<ClientTask>;
  batchDelete(
    names: readonly string[],
    leaseTokens?: readonly number[],
  ): Promise<{ deleted: string[]; notFound: string[] }>;
}
