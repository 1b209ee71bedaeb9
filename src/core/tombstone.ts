/**
 * A name held after its task went: deleted by a consumer, purged, or dropped
 * by the retry limit. Held for the tombstone retention period, so adding the
 * name again fails with TOMBSTONED_TASK. Times are microseconds since the epoch.
 *
 * A consumer's delete of a task whose name the service generated writes no
 * tombstone: such a name is held by its form instead, for the retention
 * period from its creation (see generated-name.ts), and is not listed here.
 */
export interface Tombstone {
  readonly name: string;
  readonly queueName: string;
  readonly reason: TombstoneReason;
  readonly deletedUsec: number;
  /** Leases the task had when it went. */
  readonly retryCount: number;
}

/** How long a deleted task's name stays held, unless configured: 7 days. */
export const DEFAULT_TOMBSTONE_RETENTION_MS = 7 * 24 * 3600 * 1000;

export type TombstoneReason = 'deleted' | 'purged' | 'retry_limit';
