/**
 * A name held after its task went: deleted by a consumer, purged, or dropped
 * by the retry limit. Held for the tombstone retention period, so adding the
 * name again fails with TOMBSTONED_TASK. Times are microseconds since the epoch.
 */
export interface Tombstone {
  readonly name: string;
  readonly queueName: string;
  readonly reason: TombstoneReason;
  readonly deletedUsec: number;
  /** Leases the task had when it went. */
  readonly retryCount: number;
}

export type TombstoneReason = 'deleted' | 'purged' | 'retry_limit';
