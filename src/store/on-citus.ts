import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { StoreContext } from './store-context.js';

/** Per database handle: whether it is a Citus coordinator (an extension is not dropped under a running service). */
const known = new WeakMap<Kysely<Database>, Promise<boolean>>();

/**
 * Whether the store's database has the citus extension, asked once per
 * database handle: reads that take a shape of their own on Citus (a query
 * per shard) pay no extra round trip on PostgreSQL after the first call.
 */
export function onCitus(ctx: StoreContext): Promise<boolean> {
  let answer = known.get(ctx.db);
  if (answer === undefined) {
    answer = sql<{ found: boolean }>`/* on_citus */
      select exists (select 1 from pg_catalog.pg_extension where extname = 'citus') as found`
      .execute(ctx.db)
      .then((result) => result.rows[0]?.found === true);
    // A failed check (the database was away) is asked again next time.
    answer.catch(() => known.delete(ctx.db));
    known.set(ctx.db, answer);
  }
  return answer;
}

/** Statements in flight at once for a per-shard read: a share of the pool, not all of it. */
const CONCURRENCY = 4;

/**
 * Runs `read` for the queue ids of each shard of `tasks` (the queues one
 * worker holds together), a few shards at a time, and returns the results
 * in no particular order. A statement that names its queues' ids as values,
 * all of one shard, is one router statement on Citus: one round trip to the
 * worker, which runs it whole, per-queue LATERAL reads and all.
 */
export async function perShard<T>(
  ctx: StoreContext,
  ids: readonly number[],
  read: (ids: number[]) => Promise<T[]>,
): Promise<T[]> {
  const groups = await sql<{ ids: number[] }>`/* citus_shard_groups */
    select array_agg(id order by id) as ids
      from unnest(${[...ids]}::int4[]) as id
     group by pg_catalog.get_shard_id_for_distribution_column(${`"${ctx.schema}".tasks`}::regclass, id)`.execute(
    ctx.db,
  );
  const todo = groups.rows.map((row) => row.ids);
  const results: T[][] = [];
  const worker = async () => {
    for (let group = todo.shift(); group !== undefined; group = todo.shift()) results.push(await read(group));
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, todo.length) }, worker));
  return results.flat();
}
