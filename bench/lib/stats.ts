/** Small statistics for benchmark figures. */

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** Median and spread (min..max) of repeated runs. */
export interface Figure {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: readonly number[];
}

export function figure(runs: readonly number[]): Figure {
  return { median: median(runs), min: Math.min(...runs), max: Math.max(...runs), runs };
}

export function formatFigure(f: Figure, digits = 0): string {
  const fmt = (v: number) =>
    v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  return `${fmt(f.median)} [${fmt(f.min)}-${fmt(f.max)}]`;
}

/** Latency samples in ms -> p50/p99. */
export function latency(samples: readonly number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}
