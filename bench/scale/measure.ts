import type pg from 'pg';
import { openBenchService } from '../lib/service-bench.js';
import { latency, median } from '../lib/stats.js';

/** p50 and p99 of a set of calls, in ms. */
export interface Latency {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly calls: number;
}

/** Runs `once` `times` times one after another and returns the p50/p99 of its durations. */
export async function timeCalls(times: number, once: (i: number) => Promise<unknown>): Promise<Latency> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await once(i);
    samples.push(performance.now() - t0);
  }
  const { p50, p99 } = latency(samples);
  return { p50Ms: p50, p99Ms: p99, calls: samples.length };
}

/** Milliseconds taken by one call. */
export async function timeOnce(once: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await once();
  return performance.now() - t0;
}

/** A table's heap and each of its indexes, in bytes. */
export interface RelationSizes {
  readonly tableBytes: number;
  readonly indexBytes: Readonly<Record<string, number>>;
  readonly totalBytes: number;
}

export async function relationSizes(admin: pg.Pool, schema: string, table: string): Promise<RelationSizes> {
  const { rows } = await admin.query<{ name: string; bytes: string; is_index: boolean }>(
    `select c.relname as name, pg_relation_size(c.oid) as bytes, c.relkind = 'i' as is_index
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1
        and (c.relname = $2 or c.oid in (select indexrelid from pg_index where indrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass))`,
    [schema, table],
  );
  const tableBytes = Number(rows.find((r) => !r.is_index)?.bytes ?? 0);
  const indexBytes = Object.fromEntries(rows.filter((r) => r.is_index).map((r) => [r.name, Number(r.bytes)]));
  const { rows: total } = await admin.query<{ bytes: string }>(`select pg_total_relation_size($1::regclass) as bytes`, [
    `${schema}.${table}`,
  ]);
  return { tableBytes, indexBytes, totalBytes: Number(total[0]?.bytes ?? 0) };
}

/**
 * Sequential scans of the given tables since the schema was made
 * (pg_stat_user_tables), less the migrations' own. Read after the service's pool has closed: a backend
 * reports its counts when it exits, or up to 10 s after it goes idle.
 */
export async function seqScans(
  admin: pg.Pool,
  schema: string,
  tables: readonly string[],
): Promise<Record<string, number>> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const { rows } = await admin.query<{ relname: string; seq_scan: string }>(
    `select relname, seq_scan from pg_stat_user_tables where schemaname = $1 and relname = any($2::text[])`,
    [schema, tables],
  );
  return Object.fromEntries(
    rows.map((r) => [r.relname, Number(r.seq_scan) - (MIGRATION_SEQ_SCANS.get(r.relname) ?? 0)]),
  );
}

/** The sequential scans the migrations make on the new, empty tables: not the curve's, so subtracted. */
const MIGRATION_SEQ_SCANS = new Map<string, number>();

/** Measures MIGRATION_SEQ_SCANS once: a schema opened and closed with nothing done in it. */
export async function measureMigrationSeqScans(url: string): Promise<void> {
  const bench = await openBenchService(url, 2);
  try {
    await bench.service.close();
    MIGRATION_SEQ_SCANS.clear();
    for (const [table, count] of Object.entries(
      await seqScans(bench.admin, bench.schema, ['tasks', 'task_tombstones', 'task_dead_letters', 'audit_log']),
    )) {
      MIGRATION_SEQ_SCANS.set(table, count);
    }
  } finally {
    await bench.close();
  }
}

/** The storage counters (sql/0004) against the tasks themselves: they must agree exactly after a fill. */
export async function countersExact(admin: pg.Pool, schema: string): Promise<boolean> {
  const { rows } = await admin.query<{ exact: boolean }>(
    `select (select coalesce(sum(task_count), 0) from ${schema}.queue_storage) = (select count(*) from ${schema}.tasks)
        and (select coalesce(sum(byte_count), 0) from ${schema}.queue_storage) = (select coalesce(sum(size_bytes), 0) from ${schema}.tasks) as exact`,
  );
  return rows[0]?.exact === true;
}

/** Bytes in MiB (what the tables and charts call MiB). */
/**
 * Write out what a fill left dirty before a point is measured: after
 * gigabytes of INSERT ... SELECT the kernel is still flushing them, and every
 * commit's WAL flush waits behind that writeback (the first full 10M-task run
 * measured adds at a third of the 1M point's rate, a transient of the fill,
 * not of the table's size). A CHECKPOINT forces the writeback to finish, so
 * the point is measured in the steady state a long-running queue is in.
 */
export async function settle(admin: pg.Pool): Promise<void> {
  await admin.query('checkpoint');
}

export const mb = (bytes: number) => bytes / (1024 * 1024);

/** Rounds of each measurement in a point (BENCH_RUNS, default 3): figures are the median over rounds. */
export const ROUNDS = Number(process.env.BENCH_RUNS ?? 3);

/** A latency measured in rounds: the median of the rounds' p50s and of their p99s, and each round's. */
export interface RoundsLatency extends Latency {
  readonly rounds: readonly Latency[];
}

/** Runs `measure` ROUNDS times one after another; p50 and p99 are the medians over the rounds (a burst of other load spoils one round, not the figure). */
export async function inRounds(measure: () => Promise<Latency>): Promise<RoundsLatency> {
  const rounds: Latency[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await measure());
  return {
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    calls: rounds.reduce((sum, r) => sum + r.calls, 0),
    rounds,
  };
}

/** The median of ROUNDS runs of a figure (throughput). */
export async function medianOfRounds(measure: () => Promise<number>): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < ROUNDS; i++) values.push(await measure());
  return median(values);
}
