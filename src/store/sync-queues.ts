import { sql } from 'kysely';
import type { ServiceConfig } from '../core/queue-config.js';
import { type StoreContext } from './store-context.js';

/**
 * Writes the configuration into the queues table: inserts new queues,
 * updates changed ones, and marks queues no longer configured inactive
 * (their tasks stay). Returns the id of every configured queue.
 */
export async function syncQueues(ctx: StoreContext, config: ServiceConfig): Promise<ReadonlyMap<string, number>> {
  return ctx.db.transaction().execute(async (trx) => {
    const ids = new Map<string, number>();
    for (const queue of config.queues) {
      const values = {
        name: queue.name,
        mode: queue.mode,
        max_leases: queue.maxLeases,
        storage_limit_bytes: queue.storageLimitBytes,
        lease_rate_calls: queue.leaseRate?.calls ?? null,
        lease_rate_seconds: queue.leaseRate?.windowSeconds ?? null,
        push_settings: queue.push ? JSON.stringify(queue.push) : null,
      };
      const row = await trx
        .withSchema(ctx.schema)
        .insertInto('queues')
        .values({ ...values, active: true })
        .onConflict((oc) => oc.column('name').doUpdateSet({ ...values, active: true, updated_at: sql`now()` }))
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.set(queue.name, row.id);
    }
    await trx
      .withSchema(ctx.schema)
      .updateTable('queues')
      .set({ active: false, updated_at: sql`now()` })
      .where('active', '=', true)
      .where('name', 'not in', [...ids.keys()])
      .execute();
    await trx
      .withSchema(ctx.schema)
      .insertInto('service_settings')
      .values({ name: 'total_storage_limit_bytes', value: config.totalStorageLimitBytes })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: config.totalStorageLimitBytes }))
      .execute();
    return ids;
  });
}
