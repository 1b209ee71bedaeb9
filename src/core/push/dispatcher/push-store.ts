import type { PushRequest } from '../push-task.js';
import type { QueueRef, TaskRef } from '../../task-store.js';

/** A push task a dispatcher has claimed: it holds it until `claimUsec` (its eta now). */
export interface ClaimedPushTask {
  readonly name: string;
  readonly body: Buffer;
  /** Null for a task added as a pull task while the queue was a pull queue (it goes out as a POST to the default URL). */
  readonly push: PushRequest | null;
  /** Attempts so far, this one included (retry count + 1). */
  readonly attempt: number;
  /** Earlier attempts that got a response. */
  readonly executionCount: number;
  /** The ETA this attempt was due at (X-AppEngine-TaskETA). */
  readonly etaUsec: number;
  /** The claim: the task's eta while it is in flight, the token of its outcome. */
  readonly claimUsec: number;
  readonly firstTryUsec: number;
  /** The previous attempt's HTTP status, if it got one. */
  readonly lastStatus: number | null;
  /** Why the previous attempt failed, if one did. */
  readonly lastError: string | null;
  /** The database's clock at the claim (task ages are measured on it). */
  readonly claimedUsec: number;
}

/** What one claim found. */
export interface PushClaim {
  readonly tasks: ClaimedPushTask[];
  /** When to claim again at the latest, in ms (tokens or the next ETA); null = only when woken. */
  readonly waitMs: number | null;
  /** Per entry of the params' `delivered`, in order: whether its claim still held (the task was deleted). */
  readonly delivered: readonly boolean[];
}

/** A 2xx outcome to write: the task is deleted if its claim still holds; `tombstone` false for a name held by its form. */
export interface DeliveredPush extends PushAttemptRef {
  readonly tombstone: boolean;
}

export interface PushClaimParams extends QueueRef {
  readonly ratePerSecond: number;
  readonly bucketSize: number;
  readonly maxConcurrentRequests: number | null;
  readonly limit: number;
  /** Deadline of tasks that set none; a claim holds a task for its deadline plus `marginMs`. */
  readonly deadlineMs: number;
  readonly marginMs: number;
  /**
   * The claiming process's push_dispatchers row (DispatcherLiveness): the
   * claim is recorded under it, and claims nothing unless it is alive.
   */
  readonly dispatcherId: string;
  /**
   * Successes to write first, in the claim's round trip and transaction (as
   * delivered() writes them): their slots count as free in this claim.
   */
  readonly delivered?: readonly DeliveredPush[];
}

/** What a heartbeat found. */
export interface DispatcherHeartbeat {
  /** False: the row had expired (it is never renewed then): the process must stop its requests and register again. */
  readonly alive: boolean;
  /** Queues whose claims of expired processes this heartbeat made due again. */
  readonly recoveredQueueIds: readonly number[];
}

/** Identifies an attempt: the task and the claim it was delivered under. */
export interface PushAttemptRef extends TaskRef {
  readonly claimUsec: number;
}

export interface PushOutcome extends PushAttemptRef {
  /** The response's status; null when none came (timeout, connection error). */
  readonly status: number | null;
  /** What went wrong, for the next attempt's X-AppEngine-TaskRetryReason and the dead letter. */
  readonly error: string;
  /** Whether the attempt counts as executed (a response other than 503). */
  readonly executed: boolean;
  /** The start of the response's body, kept in the attempt history (sql/0019); null without one. */
  readonly responseExcerpt?: string | null;
  /** How long the request took; null when none was sent. */
  readonly durationMs?: number | null;
}

/**
 * The dispatcher's seam to the database (store/push/pg-push-store.ts). Every
 * outcome is written only while the claim holds, so a task deleted or purged
 * in flight stays deleted.
 */
export interface PushStore {
  claim(params: PushClaimParams): Promise<PushClaim>;
  /** Registers this process as a dispatcher alive for `leaseMs` from now (the database's clock); answers its id. */
  registerDispatcher(params: { readonly leaseMs: number }): Promise<string>;
  /** Renews the row for `leaseMs` unless it has expired, and recovers the claims of expired rows. */
  heartbeat(params: { readonly dispatcherId: string; readonly leaseMs: number }): Promise<DispatcherHeartbeat>;
  /** Clean shutdown, after the last request: the row expires now and its claims still held are due again at once. */
  retireDispatcher(dispatcherId: string): Promise<readonly number[]>;
  /** 2xx: deletes the task; `tombstone` false for a name held by its form. True when the claim still held. */
  delivered(params: DeliveredPush): Promise<boolean>;
  /** A failed attempt with retries left: the task is due again in `delayMs` from now (the database's clock); the attempt is recorded. */
  failed(params: PushOutcome & { readonly delayMs: number }): Promise<boolean>;
  /** Out of retries: to the dead letters with its last outcome (and its attempt recorded), its name tombstoned. */
  deadLetter(params: PushOutcome): Promise<boolean>;
  /** A 503: the queue refills at half its rate for `slowMs`, and dispatches nothing for `holdMs` (Retry-After). */
  throttle(params: QueueRef & { readonly slowMs: number; readonly holdMs: number }): Promise<void>;
  /** Resolves when tasks may have arrived (a notification), after `timeoutMs`, or when `signal` aborts. */
  waitForTasks(params: QueueRef & { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<void>;
}
