/**
 * The options of `npm run bench -- --scale`: which curves, at which points.
 * Defaults are the full points of the scale curves; a reader reproduces one
 * curve with, for example, `--scale --curves=waiting --points=10k,1m`.
 */

export type CurveName = 'waiting' | 'queues' | 'held' | 'pages' | 'search';

export const CURVES: readonly CurveName[] = ['waiting', 'queues', 'held', 'pages', 'search'];

export interface ScaleOptions {
  readonly curves: readonly CurveName[];
  /** Waiting tasks in one queue. */
  readonly waiting: readonly number[];
  /** Configured queues (tasks spread over them). */
  readonly queues: readonly number[];
  /** Tombstone rows of caller-named tasks (a week of retention). */
  readonly held: readonly number[];
  /** Dead letters and audit entries. */
  readonly pages: readonly number[];
  /** Tasks in one queue, searched. */
  readonly search: readonly number[];
}

export const DEFAULT_POINTS = {
  waiting: [10_000, 1_000_000, 10_000_000],
  queues: [1, 100, 1_000],
  held: [10_000_000, 50_000_000],
  pages: [1_000_000],
  search: [1_000_000, 10_000_000],
} as const;

/** "10k", "1m", "2.5M", "1000", "1_000" -> a positive integer. */
export function parseCount(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(text.trim().replace(/_/g, ''));
  if (!match) throw new Error(`not a count: "${text}" (write 10k, 1m, 1000)`);
  const scale = { '': 1, k: 1e3, m: 1e6, g: 1e9 }[match[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  const value = Math.round(Number(match[1]) * scale);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`not a positive count: "${text}"`);
  return value;
}

function listOption(argv: readonly string[], name: string): string[] | undefined {
  const arg = argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined
    ? undefined
    : arg
        .slice(name.length + 3)
        .split(',')
        .filter((s) => s.length > 0);
}

/**
 * `--curves=waiting,queues,held,pages` (default all);
 * `--points=` the points of every count curve chosen (waiting tasks, held
 * names, dead letters/audit rows), or per curve `--waiting=`, `--held=`,
 * `--pages=`, `--search=`; `--queues=` the queue counts.
 */
export function parseScaleOptions(argv: readonly string[]): ScaleOptions {
  const curveNames = listOption(argv, 'curves') ?? [...CURVES];
  for (const name of curveNames) {
    if (!CURVES.includes(name as CurveName))
      throw new Error(`unknown curve "${name}" (choose from ${CURVES.join(', ')})`);
  }
  const points = listOption(argv, 'points')?.map(parseCount);
  const pick = (name: 'waiting' | 'held' | 'pages' | 'search') =>
    listOption(argv, name)?.map(parseCount) ?? points ?? [...DEFAULT_POINTS[name]];
  return {
    curves: curveNames as CurveName[],
    waiting: pick('waiting'),
    queues: listOption(argv, 'queues')?.map(parseCount) ?? [...DEFAULT_POINTS.queues],
    held: pick('held'),
    pages: pick('pages'),
    search: pick('search'),
  };
}
