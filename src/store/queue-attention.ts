import { sql, type RawBuilder } from 'kysely';
import { ATTENTION_SCAN_LIMIT, type QueueAttention } from '../core/queue-attention.js';
import { onCitus, perShard } from './on-citus.js';
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
  // On Citus a statement per shard, its reads restricted to the shard's queues by value (as queueOverview):
  // Citus then routes it whole to the worker holding them.
  const rows = (await onCitus(ctx))
    ? await perShard(ctx, params.queueIds, async (ids) => {
        const within = sql`and queue_id = any(${ids}::int4[])`;
        return (await attentionStatement(ctx, ids, within, params.deadLetterSeconds).execute(ctx.db)).rows;
      })
    : (await attentionStatement(ctx, params.queueIds, sql``, params.deadLetterSeconds).execute(ctx.db)).rows;
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

/** The attention read of queues `ids`; `within` restricts each read to them by value on Citus (nothing on PostgreSQL). */
function attentionStatement(
  ctx: StoreContext,
  ids: readonly number[],
  within: RawBuilder<unknown>,
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
                 where queue_id = q.id ${within} and eta > now()
                 order by eta
                 limit ${ATTENTION_SCAN_LIMIT}::int4) t
         where t.last_error is not null
      ) f on q.push_settings is not null
      cross join lateral (
        select count(*) as arrived
          from (select 1 from ${table(ctx, 'task_dead_letters')}
                 where queue_id = q.id ${within} and died_at > now() - make_interval(secs => ${deadLetterSeconds}::float8)
                 limit ${ATTENTION_SCAN_LIMIT}::int4) x
      ) d
     where q.id = any(${[...ids]}::int4[])`;
}
