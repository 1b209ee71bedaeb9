import { sql, type Kysely } from 'kysely';
import { definitionsFingerprint, storedQueue } from '../../core/queue-definitions.js';
import { QueueError } from '../../core/errors.js';
import type { ServiceConfig } from '../../core/queue-config.js';
import type { Database } from '../schema.js';
import { table, type StoreContext } from '../store-context.js';

/**
 * Writes the configuration into the queues table: inserts new queues,
 * updates changed ones, and marks queues no longer configured inactive
 * (their tasks stay). Returns the id of every configured queue. Only the
 * definitions' owner calls it (settle-queue-definitions.ts decides).
 * `push_settings` keeps the writer's resolved base URL (the console shows
 * it); `definition`, what other processes compare and serve, does not.
 */
export async function syncQueues(ctx: StoreContext, config: ServiceConfig): Promise<ReadonlyMap<string, number>> {
  return ctx.db.transaction().execute((trx) => writeQueues({ db: trx, schema: ctx.schema }, config));
}

/**
 * syncQueues inside the caller's transaction; also records the write as a
 * new revision of the definitions (`queue_definitions`), which every other
 * process compares with the one it serves.
 *
 * Every queue goes in one multi-row upsert, its columns bound as arrays: one
 * statement per queue made start-up take 0.65 s at 1,000 queues
 * (docs/performance.md, scale). `updated_at` takes `excluded.updated_at`, the
 * column default (`now()`, the same value for the whole transaction) rather
 * than `now()` itself: Citus refuses a non-IMMUTABLE function in
 * ON CONFLICT DO UPDATE SET (docs/scaling.md).
 */
export async function writeQueues(
  ctx: { readonly db: Kysely<Database>; readonly schema: string },
  config: ServiceConfig,
): Promise<ReadonlyMap<string, number>> {
  const trx = ctx.db;
  const ids = await upsertQueues(ctx, config.queues);
  await sql`/* sync_queues_deactivate */
    update ${table(ctx, 'queues')} set active = false, updated_at = now()
     where active and source = 'file' and name <> all(${[...ids.keys()]}::text[])`.execute(trx);
  await sql`/* sync_queues_total_limit */
    insert into ${table(ctx, 'service_settings')} (name, value) values ('total_storage_limit_bytes', ${config.totalStorageLimitBytes}::int8)
    on conflict (name) do update set value = excluded.value`.execute(trx);
  await sql`/* sync_queues_revision */
    insert into ${table(ctx, 'queue_definitions')} (fingerprint, source, admin_emails)
    values (${definitionsFingerprint(config)}, ${config.source}, ${[...config.adminEmails]}::text[])`.execute(trx);
  return ids;
}

/**
 * Inserts or updates the given queues, active, and returns their ids; no
 * revision. writeQueues's first step, and on its own the built-in cron
 * queue an owner with a cron file adds to definitions that lack it (it is
 * in no fingerprint, so its row is no new revision).
 */
export async function upsertQueues(
  ctx: { readonly db: Kysely<Database>; readonly schema: string },
  queues: ServiceConfig['queues'],
): Promise<Map<string, number>> {
  const trx = ctx.db;
  const ids = new Map<string, number>();
  if (queues.length > 0) {
    await refuseApiQueues(
      ctx,
      queues.map((q) => q.name),
    );
    const result = await sql<{ id: number; name: string }>`/* sync_queues */
      insert into ${table(ctx, 'queues')} as q
             (name, mode, max_leases, storage_limit_bytes, lease_rate_calls, lease_rate_seconds, push_settings, definition, active)
      select u.name, u.mode, u.max_leases, u.storage_limit_bytes, u.lease_rate_calls, u.lease_rate_seconds, u.push_settings, u.definition, true
        from unnest(${queues.map((q) => q.name)}::text[], ${queues.map((q) => q.mode)}::text[],
                    ${queues.map((q) => q.maxLeases)}::int4[], ${queues.map((q) => q.storageLimitBytes)}::int8[],
                    ${queues.map((q) => q.leaseRate?.calls ?? null)}::int4[],
                    ${queues.map((q) => q.leaseRate?.windowSeconds ?? null)}::int4[],
                    ${queues.map((q) => (q.push ? JSON.stringify(q.push) : null))}::jsonb[],
                    ${queues.map((q) => JSON.stringify(storedQueue(q)))}::jsonb[])
          as u (name, mode, max_leases, storage_limit_bytes, lease_rate_calls, lease_rate_seconds, push_settings, definition)
      on conflict (name) do update
        set mode = excluded.mode, max_leases = excluded.max_leases, storage_limit_bytes = excluded.storage_limit_bytes,
            lease_rate_calls = excluded.lease_rate_calls, lease_rate_seconds = excluded.lease_rate_seconds,
            push_settings = excluded.push_settings, definition = excluded.definition, active = true, updated_at = excluded.updated_at,
            source = 'file', deleted_at = null
      returning q.id, q.name`.execute(trx);
    for (const row of result.rows) ids.set(row.name, row.id);
  }
  return ids;
}

/**
 * A deploy leaves API-made queues alone: a name its file shares with a live
 * one is refused, naming them (a deleted one's row is taken over).
 */
async function refuseApiQueues(
  ctx: { readonly db: Kysely<Database>; readonly schema: string },
  names: readonly string[],
): Promise<void> {
  const result = await sql<{ name: string }>`/* sync_queues_api_names */
    select name from ${table(ctx, 'queues')}
     where source = 'api' and active and name = any(${[...names]}::text[]) order by name`.execute(ctx.db);
  if (result.rows.length === 0) return;
  const listed = result.rows.map((row) => `"${row.name}"`).join(', ');
  throw new QueueError(
    'INVALID_CONFIG',
    `queue ${listed} ${result.rows.length === 1 ? 'is' : 'are'} defined in the configuration and made through the Cloud Tasks API: ` +
      'a queue has one source. Nothing was written. Rename it in the file, or delete the API-made queue first',
    { queue: result.rows[0]!.name },
  );
}

/**
 * Writes each push queue's settings with this owner's resolved base URL
 * when its definitions are already the newest revision (no new revision):
 * the base URL is the process's (TASKQUEUE_PUSH_BASE_URL, target routes),
 * not the definition's, and the SQL API's add_push_task checks it.
 */
export async function refreshPushSettings(
  ctx: { readonly db: Kysely<Database>; readonly schema: string },
  config: ServiceConfig,
): Promise<void> {
  const push = config.queues.filter((queue) => queue.push !== undefined);
  if (push.length === 0) return;
  await sql`/* sync_queues_push_settings */
    update ${table(ctx, 'queues')} as q set push_settings = u.push_settings
      from unnest(${push.map((q) => q.name)}::text[], ${push.map((q) => JSON.stringify(q.push))}::jsonb[]) as u (name, push_settings)
     where q.name = u.name and q.active and q.push_settings is distinct from u.push_settings`.execute(ctx.db);
}
