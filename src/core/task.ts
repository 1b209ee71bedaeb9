import { randomFillSync } from 'node:crypto';

/**
 * A task as the service hands it out. Times are microseconds since the Unix
 * epoch, the precision PostgreSQL keeps, so `etaUsec` can serve as the lease
 * token exactly (a JavaScript Date would round it to milliseconds).
 */
export interface Task {
  readonly name: string;
  readonly queueName: string;
  readonly payload: Buffer;
  readonly tag: string | null;
  /** Leases so far: 1 after the first lease. */
  readonly retryCount: number;
  /** When the task becomes leasable: its schedule time, or while leased, its lease expiry (the lease token). */
  readonly etaUsec: number;
  /** When the task was added. */
  readonly enqueuedUsec: number;
}

/** What a producer gives to `add`. */
export interface TaskOptions {
  /** Task name, `^[a-zA-Z0-9_-]{1,500}$`; generated when absent (recommended). */
  readonly name?: string;
  /** Bytes, or a string stored as UTF-8. At most 1 MB. */
  readonly payload?: Uint8Array | string;
  /** Leases can be restricted to one tag. At most 500 bytes. */
  readonly tag?: string | null;
  /** Must be PULL for a pull queue (the default). */
  readonly method?: 'PULL' | 'PUSH';
  /** Seconds from now until the task may be leased (at most 30 days). */
  readonly countdownSeconds?: number;
  /** Absolute time from which the task may be leased (at most 30 days ahead). */
  readonly eta?: Date;
  /** The same as `eta`, in microseconds since the epoch (REST `leaseTimestamp`). */
  readonly etaUsec?: number;
}

/** App Engine's task-name rule (taskqueue.py `_TASK_NAME_PATTERN`). */
export const TASK_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,500}$/;

/**
 * A generated name: 22 URL-safe characters, 48 bits of time (milliseconds)
 * then 80 random bits. The random part alone makes collisions and guessing
 * impractical; the time prefix makes names of one moment sort together, so
 * the primary key grows at its right edge instead of touching a random page
 * of the index for every add (the way ULIDs and UUIDv7 do it).
 */
export function generateTaskName(): string {
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(Date.now(), 0, 6);
  takeRandom(bytes, 6, 10);
  return bytes.toString('base64url');
}

/**
 * Random bytes come from a pool filled 8 KB at a time: one call to the
 * system's generator per ~800 names instead of one per name, which was the
 * largest single cost of adding a batch of 100 tasks in-process.
 */
const pool = Buffer.allocUnsafe(8192);
let poolOffset = pool.length;

function takeRandom(target: Buffer, at: number, length: number): void {
  if (poolOffset + length > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(target, at, poolOffset, poolOffset + length);
  // Never hand out the same bytes twice.
  pool.fill(0, poolOffset, poolOffset + length);
  poolOffset += length;
}

/** Converts the microsecond timestamps of a task to a Date (millisecond precision). */
export function usecToDate(usec: number): Date {
  return new Date(Math.floor(usec / 1000));
}
