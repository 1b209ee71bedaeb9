import { sql, type RawBuilder } from 'kysely';
import type { DeliveredPush } from '../../core/push/dispatcher/push-store.js';
import type { Database } from '../schema.js';
import { table, type StoreContext } from '../store-context.js';
import { tombstoneUpsert } from '../tombstone-upsert.js';

/**
 * Deletes delivered push tasks of one queue in one statement
 * (push_delivered), each only while its eta is still the claim it was
 * delivered under: a task deleted, purged or claimed again meanwhile is
 * left alone. Returns whether each was deleted, in order.
 */
export async function deleteDelivered(ctx: StoreContext, delivered: readonly DeliveredPush[]): Promise<boolean[]> {
  const result = await deliveredStatement((name) => table(ctx, name), {
    queueId: sql`${delivered[0]!.queueId}`,
    names: sql`${delivered.map((d) => d.name)}`,
    claimsUsec: sql`${delivered.map((d) => d.claimUsec)}`,
    tombstones: sql`${delivered.map((d) => d.tombstone)}`,
  }).execute(ctx.db);
  const gone = new Set(result.rows.map((row) => row.name));
  return delivered.map((d) => gone.has(d.name));
}

/** The values the delivered delete binds, as fragments: bound parameters for the service, the arguments of claim_push_tasks_after_delivery. */
export interface DeliveredValues {
  readonly queueId: RawBuilder<unknown>;
  /** The delivered tasks' names, a text[]. */
  readonly names: RawBuilder<unknown>;
  /** Each one's claim, the eta it was claimed with in microseconds since the epoch, an int8[]. */
  readonly claimsUsec: RawBuilder<unknown>;
  /** Whether each one's name needs a tombstone row (false: held by its form), a bool[]. */
  readonly tombstones: RawBuilder<unknown>;
}

/**
 * The delete of delivered push tasks, its one definition: the service runs
 * it with bound values when its dispatch loop has stopped (PgPushStore's
 * `delivered`), and claim_push_tasks_after_delivery, which writes the
 * loop's successes before its next claim, is generated from it
 * (push-claim-function.ts). The claim is matched to the microsecond by
 * integer arithmetic: whole seconds and the rest apart, no floating-point
 * product.
 */
export function deliveredStatement(
  tableOf: (name: keyof Database) => RawBuilder<unknown>,
  v: DeliveredValues,
): RawBuilder<{ name: string }> {
  const held = tombstoneUpsert(tableOf, 'held', {
    queueId: v.queueId,
    source: 'gone',
    reason: 'deleted',
    where: sql`tombstone`,
  });
  return sql<{ name: string }>`/* push_delivered */
    with input as (
      select i.name, timestamptz 'epoch' + (i.usec / 1000000) * interval '1 second'
                                         + (i.usec % 1000000) * interval '1 microsecond' as claim, i.tombstone
        from unnest(${v.names}::text[], ${v.claimsUsec}::int8[], ${v.tombstones}::bool[]) as i (name, usec, tombstone)
    ), gone as (
      delete from ${tableOf('tasks')} t using input i
       where t.queue_id = ${v.queueId} and t.name = i.name and t.eta = i.claim
      returning t.name, t.retry_count, i.tombstone
    ), ${held}
    select name from gone`;
}
