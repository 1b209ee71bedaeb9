import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { StoreContext } from './store-context.js';

/** Per database handle: whether it is a Citus coordinator (an extension is not dropped under a running service). */
const known = new WeakMap<Kysely<Database>, Promise<boolean>>();

/**
 * Whether the store's database has the citus extension, asked once per
 * database handle: reads that take a shape of their own on Citus (a query
 * per queue) pay no extra round trip on PostgreSQL after the first call.
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

/** Statements in flight at once for a per-queue read: a share of the pool, not all of it. */
const PER_QUEUE_CONCURRENCY = 4;

/**
 * Runs `read` for each queue id, a few at a time (each is one router
 * statement on Citus: one round trip to the worker holding the queue), and
 * returns the results in the ids' order.
 */
export async function perQueue<T>(ids: readonly number[], read: (id: number) => Promise<T[]>): Promise<T[]> {
  const results: T[][] = new Array<T[]>(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const index = next++;
      results[index] = await read(ids[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PER_QUEUE_CONCURRENCY, ids.length) }, worker));
  return results.flat();
}
