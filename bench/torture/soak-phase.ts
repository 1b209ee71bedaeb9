import pg from 'pg';
import { describeLoad, loadPassed, runLoad, type LoadOptions, type LoadReport } from './load-phase.js';
import { sleep } from './sleep.js';
import type { TestBed } from './test-bed.js';

/** One sample of the soak, every SAMPLE_SECONDS. */
export interface SoakSample {
  readonly second: number;
  readonly rssMB: number[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  readonly liveTuples: number;
  readonly deadTuples: number;
  readonly autovacuums: number;
  /** Every latency of the interval, ms (the windows' percentiles are computed over all of them). */
  readonly latencies: number[];
}

export interface SoakReport {
  readonly maxPerSecond: number;
  readonly maxOpsPerSecond: number;
  readonly targetPerSecond: number;
  readonly warmupSeconds: number;
  readonly samples: SoakSample[];
  readonly load: LoadReport;
  readonly autovacuumSettings: string[];
  readonly rssGrowth: number;
  readonly p99Drift: number;
  readonly p99First: number;
  readonly p99Last: number;
  readonly deadTuplesFirst: number;
  readonly deadTuplesLast: number;
}

const SAMPLE_SECONDS = 10;
const BACKLOG_CAP = 5000;
/** The windows compared: the first WINDOW_SECONDS after warm-up against the last WINDOW_SECONDS. */
const WINDOW_SECONDS = 120;
/** "Flat": the last minute's RSS at most this much above the first minute after warm-up. */
const RSS_GROWTH_LIMIT = 0.1;
/** Drift is growth: a p99 that falls (the machine got quieter) is reported, not a failure. */
const P99_DRIFT_LIMIT = 0.2;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/**
 * The soak: first the maximum (as fast as the 48 clients go, no chaos, 30 s),
 * then `minutes` at half of it, paced, sampling each server's RSS, the
 * latency percentiles and the task table's live and dead tuples.
 */
export async function runSoak(bed: TestBed, minutes: number, log: (line: string) => void): Promise<SoakReport> {
  // A steady state: producers hold the main queue's backlog near BACKLOG_CAP tasks, so the
  // soak measures the service, not a queue that grows for ten minutes.
  const base: LoadOptions = {
    producers: 16,
    consumers: 32,
    lapsing: 0.3,
    targetOps: Number.POSITIVE_INFINITY,
    maxSeconds: 30,
    chaos: null,
    perSecond: () => 0,
    backlogCap: BACKLOG_CAP,
  };
  log('soak: measuring the maximum (30 s, no chaos)');
  const requestsBefore = bed.caller.completed;
  const max = await runLoad(bed, base, log);
  const maxPerSecond = (bed.caller.completed - requestsBefore) / max.seconds;
  const targetPerSecond = maxPerSecond / 2;
  log(
    `maximum: ${maxPerSecond.toFixed(0)} requests/s (${(max.ops / max.seconds).toFixed(0)} operations/s); soaking at ${targetPerSecond.toFixed(0)} requests/s for ${minutes} min`,
  );

  const client = new pg.Client({ connectionString: bed.databaseUrl });
  await client.connect();
  const settings = await client.query<{ setting: string }>(
    `select name || ' = ' || setting as setting from pg_settings where name like 'autovacuum%' order by name`,
  );
  const options = await client.query<{ reloptions: string[] | null }>(
    `select reloptions from pg_class where oid = 'taskqueue.tasks'::regclass`,
  );
  const autovacuumSettings = [
    ...settings.rows.map((row) => row.setting),
    `taskqueue.tasks reloptions: ${(options.rows[0]?.reloptions ?? []).join(', ')}`,
  ];

  const samples: SoakSample[] = [];
  let running = true;
  bed.caller.takeLatencies();
  const started = Date.now();
  const sampling = (async () => {
    let requests = bed.caller.completed;
    while (running) {
      await sleep(SAMPLE_SECONDS * 1000);
      if (!running) break;
      const latencies = bed.caller.takeLatencies().sort((a, b) => a - b);
      const stats = await client.query<{ live: string; dead: string; autovacuums: string }>(
        `select n_live_tup::text as live, n_dead_tup::text as dead, autovacuum_count::text as autovacuums from pg_stat_user_tables where relid = 'taskqueue.tasks'::regclass`,
      );
      const row = stats.rows[0];
      const sample: SoakSample = {
        second: Math.round((Date.now() - started) / 1000),
        rssMB: bed.fleet.slots.map((slot) => Math.round(slot.rssBytes() / 2 ** 20)),
        p50Ms: percentile(latencies, 0.5),
        p99Ms: percentile(latencies, 0.99),
        requests: bed.caller.completed - requests,
        liveTuples: Number(row?.live ?? 0),
        deadTuples: Number(row?.dead ?? 0),
        autovacuums: Number(row?.autovacuums ?? 0),
        latencies,
      };
      requests = bed.caller.completed;
      samples.push(sample);
      log(
        `  soak ${sample.second} s: ${(sample.requests / SAMPLE_SECONDS).toFixed(0)} requests/s, p50 ${sample.p50Ms.toFixed(1)} ms, p99 ${sample.p99Ms.toFixed(1)} ms, ` +
          `RSS ${sample.rssMB.join('/')} MB, tasks live ${sample.liveTuples} dead ${sample.deadTuples}, autovacuums ${sample.autovacuums}`,
      );
    }
  })();
  const load = await runLoad(
    bed,
    { ...base, maxSeconds: minutes * 60, perSecond: () => targetPerSecond },
    () => undefined,
  );
  running = false;
  await sampling;
  await client.end();

  // Warm-up: the first fifth (2 minutes of 10); "first" and "last" are the WINDOW_SECONDS after it and the run's last ones.
  const warmupSeconds = Math.round((minutes * 60) / 5);
  const perWindow = Math.max(1, Math.round(WINDOW_SECONDS / SAMPLE_SECONDS));
  const afterWarmup = samples.filter((sample) => sample.second > warmupSeconds);
  const first = afterWarmup.slice(0, perWindow);
  const last = afterWarmup.slice(-perWindow);
  const rssOf = (window: SoakSample[]) => median(window.map((sample) => sample.rssMB.reduce((a, b) => a + b, 0)));
  const p99Of = (window: SoakSample[]) =>
    percentile(
      window.flatMap((sample) => sample.latencies).sort((a, b) => a - b),
      0.99,
    );
  const deadOf = (window: SoakSample[]) => Math.max(0, ...window.map((sample) => sample.deadTuples));
  return {
    maxPerSecond,
    maxOpsPerSecond: max.ops / max.seconds,
    targetPerSecond,
    warmupSeconds,
    samples,
    load,
    autovacuumSettings,
    rssGrowth: rssOf(last) / rssOf(first) - 1,
    p99Drift: p99Of(last) / p99Of(first) - 1,
    p99First: p99Of(first),
    p99Last: p99Of(last),
    deadTuplesFirst: deadOf(first),
    deadTuplesLast: deadOf(last),
  };
}

/** Dead tuples "in check": the last window's peak no more than 1.5x the first window's after warm-up, plus vacuum's threshold. */
function deadTuplesInCheck(report: SoakReport): boolean {
  return report.deadTuplesLast <= report.deadTuplesFirst * 1.5 + 5000;
}

export function soakPassed(report: SoakReport): boolean {
  return (
    loadPassed(report.load) &&
    report.rssGrowth <= RSS_GROWTH_LIMIT &&
    report.p99Drift < P99_DRIFT_LIMIT &&
    deadTuplesInCheck(report)
  );
}

export function describeSoak(report: SoakReport): string[] {
  const mark = (ok: boolean) => (ok ? 'ok  ' : 'FAIL');
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return [
    `maximum ${report.maxPerSecond.toFixed(0)} requests/s (${report.maxOpsPerSecond.toFixed(0)} operations/s); soaked at ${report.targetPerSecond.toFixed(0)} requests/s`,
    ...describeLoad(report.load),
    `autovacuum settings: ${report.autovacuumSettings.join('; ')}`,
    `${mark(report.rssGrowth <= RSS_GROWTH_LIMIT)} RSS of the 3 servers after warm-up (${report.warmupSeconds} s): last ${WINDOW_SECONDS} s ${pct(report.rssGrowth)} against the first ${WINDOW_SECONDS} s (limit +${pct(RSS_GROWTH_LIMIT)})`,
    `${mark(report.p99Drift < P99_DRIFT_LIMIT)} p99 latency: ${report.p99First.toFixed(0)} ms in the first ${WINDOW_SECONDS} s after warm-up, ${report.p99Last.toFixed(0)} ms in the last: drift ${pct(report.p99Drift)} (limit +${pct(P99_DRIFT_LIMIT)})`,
    `${mark(deadTuplesInCheck(report))} dead tuples in taskqueue.tasks: at most ${report.deadTuplesFirst} in the first ${WINDOW_SECONDS} s after warm-up, ${report.deadTuplesLast} in the last`,
  ];
}
