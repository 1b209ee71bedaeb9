import { sql, type RawBuilder } from 'kysely';
import { ATTENTION_SCAN_LIMIT, type QueueAttention } from '../core/queue-attention.js';
import { onCitus, perQueue } from './on-citus.js';
import { table, toNumber, type StoreContext } from './store-context.js';

interface AttentionRow {
  queue: string;
  failing: unknown;
  failing_for_seconds: unknown;
  failing_status: number | null;
  failing_error: string | null;
  arrived: unknown;
}

/**
 * The given queues' failures in one query, each part bounded whatever the
 * queue's size: a push queue's next ATTENTION_SCAN_LIMIT tasks due (by the
 * (queue_id, eta) index; a failed delivery waits for its retry with its eta
 * ahead, so failing tasks are among them) and its dead letters that died
 * within `deadLetterSeconds` (by the (queue_id, died_at) index), each read
 * up to the limit and no further.
 */
export async function queueAttention(
  ctx: StoreContext,
  params: { readonly queueIds: readonly number[]; readonly deadLetterSeconds: number },
): Promise<QueueAttention[]> {
  // On Citus a statement per queue with its id as a value (as queueOverview): Citus routes that whole to the
  // queue's worker, and cannot plan the reference table `queues` joined per queue to the distributed tables.
  const rows = (await onCitus(ctx))
    ? await perQueue(params.queueIds, async (id) => {
        const key = sql`${id}::int4`;
        return (await attentionStatement(ctx, key, sql`q.id = ${key}`, params.deadLetterSeconds).execute(ctx.db)).rows;
      })
    : (
        await attentionStatement(
          ctx,
          sql`q.id`,
          sql`q.id = any(${[...params.queueIds]}::int4[])`,
          params.deadLetterSeconds,
        ).execute(ctx.db)
      ).rows;
  return rows.map((row) => ({
    name: row.queue,
    failingDeliveries: toNumber(row.failing),
    failingForSeconds:
      row.failing_for_seconds === null || row.failing_for_seconds === undefined
        ? null
        : Math.max(0, toNumber(row.failing_for_seconds)),
    failingStatus: row.failing_status ?? null,
    failingError: row.failing_error ?? null,
    deadLettersArrived: toNumber(row.arrived),
  }));
}

/** The attention read of the queues `where` selects; `key` is the queue's id (`q.id`, or a bound value on Citus). */
function attentionStatement(
  ctx: StoreContext,
  key: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
  deadLetterSeconds: number,
) {
  return sql<AttentionRow>`/* queue_attention */
    select q.name as queue, coalesce(f.failing, 0) as failing, f.failing_for_seconds, f.failing_status, f.failing_error,
           d.arrived
      from ${table(ctx, 'queues')} q
      left join lateral (
        select count(*) as failing,
               extract(epoch from now() - min(coalesce(t.first_try_at, t.enqueued_at)))::float8 as failing_for_seconds,
               mode() within group (order by t.last_status) as failing_status,
               (array_agg(t.last_error order by coalesce(t.first_try_at, t.enqueued_at)))[1] as failing_error
          from (select first_try_at, enqueued_at, last_status, last_error
                  from ${table(ctx, 'tasks')}
                 where queue_id = ${key} and eta > now()
                 order by eta
                 limit ${ATTENTION_SCAN_LIMIT}::int4) t
         where t.last_error is not null
      ) f on q.push_settings is not null
      cross join lateral (
        select count(*) as arrived
          from (select 1 from ${table(ctx, 'task_dead_letters')}
                 where queue_id = ${key} and died_at > now() - make_interval(secs => ${deadLetterSeconds}::float8)
                 limit ${ATTENTION_SCAN_LIMIT}::int4) x
      ) d
     where ${where}`;
}
