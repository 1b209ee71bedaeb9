/**
 * `npx tsx bench/cycle-wal.ts [tasks]`: what one lease + delete of one task
 * per call writes, ours against the raw SQL loop (bench/lib/raw-sql.ts):
 * WAL records, full-page images and bytes (pg_stat_wal), and rows inserted,
 * updated and deleted per table (pg_stat_user_tables), one consumer, after a
 * warm-up. pg_stat_wal counts the whole cluster: run it on a quiet one.
 */
import pg from 'pg';
import { RawSqlQueue } from './lib/raw-sql.js';
import { benchCycle, openBenchService, preload } from './lib/service-bench.js';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TASKS = Number(process.argv[2] ?? 3000);
const WARM = 300;

interface Written {
  walRecords: number;
  walFpi: number;
  walBytes: number;
  rows: Record<string, { ins: number; upd: number; del: number; hot: number }>;
}

async function snapshot(db: pg.Client, schema: string): Promise<Written> {
  // A backend that goes idle flushes its pending counters (tables and WAL)
  // within 10 s (PGSTAT_IDLE_INTERVAL): wait that out on both sides.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  await db.query('select pg_stat_clear_snapshot()');
  const wal = (
    await db.query<{ r: string; f: string; b: string }>('select wal_records r, wal_fpi f, wal_bytes b from pg_stat_wal')
  ).rows[0]!;
  const tables = await db.query<{ relname: string; ins: string; upd: string; del: string; hot: string }>(
    'select relname, n_tup_ins ins, n_tup_upd upd, n_tup_del del, n_tup_hot_upd hot from pg_stat_user_tables where schemaname = $1',
    [schema],
  );
  return {
    walRecords: Number(wal.r),
    walFpi: Number(wal.f),
    walBytes: Number(wal.b),
    rows: Object.fromEntries(
      tables.rows.map((t) => [
        t.relname,
        { ins: Number(t.ins), upd: Number(t.upd), del: Number(t.del), hot: Number(t.hot) },
      ]),
    ),
  };
}

function perTask(before: Written, after: Written, tasks: number): string[] {
  const lines = [
    `  WAL per task: ${((after.walRecords - before.walRecords) / tasks).toFixed(2)} records, ${((after.walFpi - before.walFpi) / tasks).toFixed(3)} full-page images, ${((after.walBytes - before.walBytes) / tasks).toFixed(0)} bytes`,
  ];
  for (const [table, a] of Object.entries(after.rows)) {
    const b = before.rows[table] ?? { ins: 0, upd: 0, del: 0, hot: 0 };
    const d = { ins: a.ins - b.ins, upd: a.upd - b.upd, del: a.del - b.del, hot: a.hot - b.hot };
    if (d.ins + d.upd + d.del === 0) continue;
    lines.push(
      `  ${table}: ${(d.ins / tasks).toFixed(2)} inserted, ${(d.upd / tasks).toFixed(2)} updated (${(d.hot / tasks).toFixed(2)} HOT), ${(d.del / tasks).toFixed(2)} deleted per task`,
    );
  }
  return lines;
}

async function main(): Promise<void> {
  const db = new pg.Client({ connectionString: URL });
  await db.connect();
  const payload = Buffer.alloc(64, 'x');

  const ours = await openBenchService(URL, 10);
  await preload(ours.queue, TASKS + WARM);
  await benchCycle(ours.queue, WARM, 1, 1);
  const o0 = await snapshot(db, ours.schema);
  const oursRun = await benchCycle(ours.queue, TASKS, 1, 1);
  const o1 = await snapshot(db, ours.schema);
  await ours.close();

  const raw = new RawSqlQueue(URL, 10);
  await raw.setup();
  await raw.add(TASKS + WARM, 4, payload);
  await raw.cycle(WARM, 1, 1);
  const r0 = await snapshot(db, raw.schema);
  const rawRun = await raw.cycle(TASKS, 1, 1);
  const r1 = await snapshot(db, raw.schema);
  await raw.close();
  await db.end();

  console.log(`lease + delete of one task per call, one consumer, ${TASKS} tasks after ${WARM} warm-up`);
  console.log(`taskqueue: ${oursRun.tasksPerSecond.toFixed(0)} tasks/s`);
  for (const line of perTask(o0, o1, TASKS)) console.log(line);
  console.log(`raw SQL: ${rawRun.tasksPerSecond.toFixed(0)} tasks/s`);
  for (const line of perTask(r0, r1, TASKS)) console.log(line);
}

await main();
