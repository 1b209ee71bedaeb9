/** The limits of spec section 8, in one place. */
export const LIMITS = {
  /** Largest payload of one task. */
  maxTaskBytes: 1024 * 1024,
  /** Largest tag, in bytes. */
  maxTagBytes: 500,
  /** Furthest a countdown or ETA may reach. */
  maxEtaAheadMs: 30 * 24 * 3600 * 1000,
  /** Tasks in one add call. */
  maxTasksPerAdd: 100,
  /** Tasks added in one caller transaction. */
  maxTasksPerTransaction: 5,
  /** Tasks in one lease call. */
  maxTasksPerLease: 1000,
  /** Longest lease. */
  maxLeaseMs: 7 * 24 * 3600 * 1000,
  /** Payload one in-process lease may return. */
  maxLeasePayloadBytes: 32 * 1024 * 1024,
  /** Payload one REST lease may return. */
  maxRestLeasePayloadBytes: 1024 * 1024,
  /** Longest wait of one lease for tasks to arrive (long-poll). */
  maxLeaseWaitMs: 60 * 1000,
  /** Names deleted at once. */
  maxTasksPerDelete: 1000,
} as const;
