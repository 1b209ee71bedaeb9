import pg from 'pg';
import { openBenchService, type BenchService } from './service-bench.js';

/** How the storage counters are kept during a run. */
export type AccountingVariant = 'sharded' | 'one-row' | 'sharded+limit';

export interface AccountingResult {
  readonly opsPerSecond: number;
  /** Sum of the counters equals count(*) and sum(size_bytes) of the table afterwards. */
  readonly exact: boolean;
}

/**
 * Adds and deletes single tasks from `workers` concurrent loops (the worst
 * case for counters: one counter update per statement). `one-row` rewrites
 * this run's trigger functions so every statement updates the same counter
 * row of the queue, which is what sharding avoids; `sharded+limit` gives the
 * queue a (never reached) storage limit, so adds take the limit's advisory
 * lock. With `inTransaction`, each add runs inside an application
 * transaction that commits 2 ms later: locks taken by the add are held that
 * long, which is where one hot row per queue would serialise every producer.
 */
export async function benchAccounting(
  url: string,
  variant: AccountingVariant,
  workers: number,
  opsPerWorker: number,
  inTransaction: boolean,
): Promise<AccountingResult> {
  const bench = await openBenchService(url, workers + 2);
  const pool = new pg.Pool({ connectionString: url, max: workers });
  try {
    if (variant === 'one-row') await useOneCounterRow(bench);
    if (variant === 'sharded+limit') {
      await bench.admin.query(`update ${bench.schema}.queues set storage_limit_bytes = 1e15 where name = 'bench'`);
    }
    const payload = Buffer.alloc(64, 'x');
    const started = performance.now();
    await Promise.all(
      Array.from({ length: workers }, async () => {
        const client = inTransaction ? await pool.connect() : null;
        try {
          for (let i = 0; i < opsPerWorker; i++) {
            let task;
            if (client) {
              // The application's own transaction: it holds whatever the add
              // locked until it commits, after some work of its own.
              await client.query('begin');
              task = await bench.queue.add({ payload }, { transaction: client });
              await new Promise((resolve) => setTimeout(resolve, 2));
              await client.query('commit');
            } else {
              task = await bench.queue.add({ payload });
            }
            // Keep half the tasks, so counts and bytes end non-zero.
            if (i % 2 === 0) await bench.queue.deleteTask(task);
          }
        } finally {
          client?.release();
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const ops = workers * opsPerWorker * 1.5;
    const { rows } = await bench.admin.query<{ exact: boolean }>(
      `select (select coalesce(sum(task_count), 0) from ${bench.schema}.queue_storage) = (select count(*) from ${bench.schema}.tasks)
          and (select coalesce(sum(byte_count), 0) from ${bench.schema}.queue_storage) = (select coalesce(sum(size_bytes), 0) from ${bench.schema}.tasks) as exact`,
    );
    return { opsPerSecond: ops / seconds, exact: rows[0]?.exact === true };
  } finally {
    await pool.end();
    await bench.close();
  }
}

async function useOneCounterRow(bench: BenchService): Promise<void> {
  for (const fn of ['tasks_after_insert', 'tasks_after_delete']) {
    const { rows } = await bench.admin.query<{ def: string }>(
      `select pg_get_functiondef(p.oid) as def from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = $1 and p.proname = $2`,
      [bench.schema, fn],
    );
    const def = rows[0]?.def;
    if (!def || !def.includes('(pg_backend_pid() % 32)')) throw new Error(`cannot rewrite ${fn}`);
    await bench.admin.query(def.replaceAll('(pg_backend_pid() % 32)', '0'));
  }
}
