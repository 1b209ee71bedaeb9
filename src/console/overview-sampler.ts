import type { DepthHistory, DepthSeries } from '../core/depth-history.js';
import type { QueueOverview } from '../core/queue-overview.js';

/** One queue's figures at one moment. */
export interface QueueSample {
  /** Epoch seconds (this process's clock: the sample is for a chart axis, never compared with stored times). */
  readonly at: number;
  readonly available: number;
  readonly leased: number;
  readonly delayed: number;
}

/** A queue's samples as columns, the shape uPlot draws. */
export type QueueSeries = DepthSeries;

export interface OverviewSamplerOptions {
  /** Reads every queue's figures (TaskQueueService.overview). */
  readonly read: () => Promise<readonly QueueOverview[]>;
  /** Seconds between samples (default 10). */
  readonly intervalSeconds?: number;
  /** How far back samples are kept, in seconds (default one hour). */
  readonly keepSeconds?: number;
  /** Clock in epoch ms (tests of the in-memory samples). */
  readonly now?: () => number;
  /**
   * Where samples are kept: the database (sql/0013), so charts cover the
   * whole window after a restart and agree between processes. Without it,
   * this process's memory (embedding tests and tools).
   */
  readonly history?: DepthHistory;
}

/**
 * Samples the overview every few seconds and keeps the last hour, so the
 * console can chart a queue's depth without a time-series store: the
 * service remembers only what the chart shows, in the database when given
 * a DepthHistory. (Leases per minute need no sampling: the database keeps
 * an hour of lease history.) A sample that fails (database away) is
 * skipped; the chart shows the gap.
 */
export class OverviewSampler {
  readonly #read: () => Promise<readonly QueueOverview[]>;
  readonly #intervalMs: number;
  readonly #keepSeconds: number;
  readonly #now: () => number;
  readonly #history: DepthHistory | null;
  readonly #samples = new Map<string, QueueSample[]>();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(options: OverviewSamplerOptions) {
    this.#read = options.read;
    this.#intervalMs = (options.intervalSeconds ?? 10) * 1000;
    this.#keepSeconds = options.keepSeconds ?? 3600;
    this.#now = options.now ?? Date.now;
    this.#history = options.history ?? null;
  }

  /** Takes a sample now and then every interval; the timer never keeps the process alive. */
  start(): void {
    if (this.#timer) return;
    void this.sample();
    this.#timer = setInterval(() => void this.sample(), this.#intervalMs);
    this.#timer.unref();
  }

  /** Takes one sample (concurrent calls share it). */
  sample(): Promise<void> {
    this.#running ??= this.#take().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /** The kept samples of one queue, oldest first. */
  async series(queue: string): Promise<QueueSeries> {
    if (this.#history) return this.#history.series(queue, this.#keepSeconds);
    const samples = this.#samples.get(queue) ?? [];
    return {
      at: samples.map((s) => s.at),
      available: samples.map((s) => s.available),
      leased: samples.map((s) => s.leased),
      delayed: samples.map((s) => s.delayed),
    };
  }

  /** Every queue's available tasks `seconds` ago (its first sample in the minute from then); absent when none. */
  async availableAgo(seconds: number): Promise<Map<string, number>> {
    if (this.#history) return this.#history.availableAgo(Math.round(seconds));
    const from = Math.round(this.#now() / 1000) - seconds;
    const found = new Map<string, number>();
    for (const [queue, samples] of this.#samples) {
      const first = samples.find((s) => s.at >= from && s.at < from + 60);
      if (first) found.set(queue, first.available);
    }
    return found;
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  async #take(): Promise<void> {
    let rows: readonly QueueOverview[];
    try {
      rows = await this.#read();
    } catch {
      return;
    }
    if (this.#history) {
      const samples = rows.map((row) => ({
        queue: row.name,
        available: row.availableTasks,
        leased: row.leasedTasks,
        delayed: row.delayedTasks,
      }));
      const bucketSeconds = Math.max(1, Math.round(this.#intervalMs / 1000));
      await this.#history.record(samples, { bucketSeconds, keepSeconds: this.#keepSeconds }).catch(() => undefined);
      return;
    }
    const at = Math.round(this.#now() / 1000);
    const oldest = at - this.#keepSeconds;
    for (const row of rows) {
      let samples = this.#samples.get(row.name);
      if (!samples) this.#samples.set(row.name, (samples = []));
      samples.push({
        at,
        available: row.availableTasks,
        leased: row.leasedTasks,
        delayed: row.delayedTasks,
      });
      let drop = 0;
      while (drop < samples.length && (samples[drop] as QueueSample).at < oldest) drop++;
      if (drop > 0) samples.splice(0, drop);
    }
  }
}
