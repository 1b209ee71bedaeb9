import type pg from 'pg';

/**
 * Records every claim of a push task as the database makes it: a trigger
 * on the service's task table (the harness owns the database; the schema
 * `torture_watch` is its own) writes queue, name and dispatched_at, the
 * time claim_push_tasks counted the token at. The bucket is then checked on
 * the database's own clock, exactly, as the push tests check it; the sink's
 * arrival times add the network's and the event loops' jitter.
 */
export async function installClaimRecorder(db: pg.Client): Promise<void> {
  await db.query(`
    create schema if not exists torture_watch;
    create table if not exists torture_watch.claims (queue_id integer not null, name text not null, at timestamptz not null);
    create or replace function torture_watch.record_claim() returns trigger language plpgsql as $$
    begin
      insert into torture_watch.claims values (new.queue_id, new.name, new.dispatched_at);
      return null;
    end $$;
    drop trigger if exists torture_watch_claims on taskqueue.tasks;
    create trigger torture_watch_claims after update of dispatched_at on taskqueue.tasks
      for each row when (new.dispatched_at is not null and new.dispatched_at is distinct from old.dispatched_at)
      execute function torture_watch.record_claim();
  `);
}

/**
 * The recorded claims of `queue`, ms since its first claim. Counted from the
 * first claim in SQL (an exact interval), not from the epoch: a float8 of
 * epoch milliseconds keeps only about 0.2 µs, enough error to read a claim
 * made exactly on its token as 0.00001 token early.
 */
export async function claimTimes(db: pg.Client, queue: string): Promise<number[]> {
  const rows = await db.query<{ ms: number }>(
    `select (extract(epoch from c.at - min(c.at) over ()) * 1000)::float8 as ms from torture_watch.claims c join taskqueue.queues q on q.id = c.queue_id where q.name = $1`,
    [queue],
  );
  return rows.rows.map((row) => Number(row.ms));
}

export async function removeClaimRecorder(db: pg.Client): Promise<void> {
  await db.query(
    `drop trigger if exists torture_watch_claims on taskqueue.tasks; drop schema if exists torture_watch cascade;`,
  );
}
