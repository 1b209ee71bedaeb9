/**
 * Samples of queue depth over time, for the console's depth chart: kept in
 * the database (sql/0013, `store/depth-history.ts`) so a chart covers the
 * whole window after a restart and every process charts the same figures.
 */

/** One queue's depth at a sampling moment. */
export interface DepthSample {
  readonly queue: string;
  readonly available: number;
  readonly leased: number;
  readonly delayed: number;
}

/** A queue's samples as columns (the shape a chart draws); `at` in epoch seconds, oldest first. */
export interface DepthSeries {
  readonly at: number[];
  readonly available: number[];
  readonly leased: number[];
  readonly delayed: number[];
}

export interface DepthHistory {
  /**
   * Records one sample of every queue, in the sampling bucket of `bucketSeconds`
   * that now falls in (a later sample in the same bucket replaces it), and
   * forgets samples older than `keepSeconds`.
   */
  record(
    samples: readonly DepthSample[],
    options: { readonly bucketSeconds: number; readonly keepSeconds: number },
  ): Promise<void>;
  /** One queue's samples over the last `seconds`, oldest first. */
  series(queue: string, seconds: number): Promise<DepthSeries>;
  /**
   * Every queue's available tasks `seconds` ago: its earliest sample in the
   * minute from then (growth of a backlog, for the console's triage). A
   * queue without a sample then is absent.
   */
  availableAgo(seconds: number): Promise<Map<string, number>>;
}
