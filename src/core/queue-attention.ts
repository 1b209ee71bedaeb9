/**
 * What the queues overview does not say about a queue's failures, read in
 * one bounded query (store/queue-attention.ts) for the console's triage:
 * push deliveries that keep failing, and dead letters that arrived lately.
 */
export interface QueueAttention {
  readonly name: string;
  /**
   * Push queues: tasks whose last delivery attempt failed, among the next
   * ATTENTION_SCAN_LIMIT tasks due (a failed task waits for its retry, its
   * eta ahead); 0 for a pull queue.
   */
  readonly failingDeliveries: number;
  /** Seconds since the first attempt of the longest-failing of them; null when none. */
  readonly failingForSeconds: number | null;
  /** The most common last HTTP status among them; null when none answered (connection refused, timeout). */
  readonly failingStatus: number | null;
  /** The last error of the longest-failing of them, as the dispatcher worded it. */
  readonly failingError: string | null;
  /** Dead letters that died within the window asked for, counted up to ATTENTION_SCAN_LIMIT. */
  readonly deadLettersArrived: number;
}

/** Rows any one count of the attention query reads at most per queue: its cost stays bounded at any depth. */
export const ATTENTION_SCAN_LIMIT = 1000;
