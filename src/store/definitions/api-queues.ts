import { sql, type Kysely } from 'kysely';
import type { ApiQueueRow, ApiQueueStore } from '../../core/api-queue-store.js';
import type { AuditIntent } from '../../core/audit-log.js';
import { QueueError } from '../../core/errors.js';
import type { QueueConfig } from '../../core/queue-config.js';
import { storedQueue } from '../../core/queue-definitions.js';
import type { Database } from '../schema.js';
import { table, toNumber, type StoreContext } from '../store-context.js';

type Tx = { readonly db: Kysely<Database>; readonly schema: string };

/**
 * The queues made through the Cloud Tasks API, on the `queues` table
 * (source `api`, sql/0021). Each change takes the lock the owner of the
 * queue.xml definitions takes (settle-queue-definitions.ts), so a deploy
 * and an API change of the same name are ordered, and moves
 * `api_queues_version` in the same transaction as its audit entry.
 */
export class PgApiQueueStore implements ApiQueueStore {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  async apiQueuesVersion(): Promise<number> {
    const result = await sql<{ value: string | null }>`/* api_queues_version */
      select value from ${table(this.#ctx, 'service_settings')} where name = 'api_queues_version'`.execute(
      this.#ctx.db,
    );
    return toNumber(result.rows[0]?.value ?? 0);
  }

  async listApiQueues(): Promise<ApiQueueRow[]> {
    const result = await sql<{ id: number; name: string; definition: unknown }>`/* api_queues_list */
      select id, name, definition from ${table(this.#ctx, 'queues')}
       where source = 'api' and active order by name`.execute(this.#ctx.db);
    return result.rows.map((row) => ({
      id: row.id,
      config: { ...parsed<QueueConfig>(row.definition), name: row.name },
    }));
  }

  createApiQueue(params: { config: QueueConfig; holdMs: number; audit: AuditIntent }): Promise<ApiQueueRow> {
    return this.#change(async (tx) => {
      const name = params.config.name;
      const found = await sql<{ id: number; source: string; active: boolean; held: boolean }>`/* api_queue_find */
        select id, source, active,
               coalesce(deleted_at > now() - make_interval(secs => ${params.holdMs / 1000}), false) as held
          from ${table(tx, 'queues')} where name = ${name} for update`.execute(tx.db);
      const row = found.rows[0];
      if (row?.active) throw new QueueError('QUEUE_ALREADY_EXISTS', 'Queue already exists', { queue: name });
      if (row?.held) {
        throw new QueueError(
          'QUEUE_NAME_HELD',
          'The queue cannot be created because a queue with this name existed too recently.',
          { queue: name },
        );
      }
      const id = await writeRow(tx, params.config, true);
      return { id, config: params.config };
    }, params.audit);
  }

  updateApiQueue(params: { config: QueueConfig; audit: AuditIntent }): Promise<ApiQueueRow> {
    return this.#change(async (tx) => {
      await requireApiQueue(tx, params.config.name);
      const id = await writeRow(tx, params.config, false);
      return { id, config: params.config };
    }, params.audit);
  }

  deleteApiQueue(params: { name: string; audit: AuditIntent }): Promise<number> {
    return this.#change(async (tx) => {
      const id = await requireApiQueue(tx, params.name);
      await sql`/* api_queue_delete */
        update ${table(tx, 'queues')} set active = false, deleted_at = now(), updated_at = now()
         where id = ${id}`.execute(tx.db);
      return id;
    }, params.audit);
  }

  /** One change: under the definitions' lock, with the version moved and the audit entry written, all or nothing. */
  #change<T>(work: (tx: Tx) => Promise<T>, audit: AuditIntent): Promise<T> {
    return this.#ctx.db.transaction().execute(async (trx) => {
      const tx = { db: trx, schema: this.#ctx.schema };
      await sql`/* queue_definitions_lock */ select pg_advisory_xact_lock(hashtext(${`${tx.schema}.queue_definitions`}))`.execute(
        trx,
      );
      const result = await work(tx);
      await sql`/* api_queues_version_bump */
        insert into ${table(tx, 'service_settings')} (name, value) values ('api_queues_version', 1)
        on conflict (name) do update set value = coalesce(${table(tx, 'service_settings')}.value, 0) + 1`.execute(trx);
      await sql`/* api_queue_audit */
        insert into ${table(tx, 'audit_log')} (actor, action, queue, target, count, source)
        values (${audit.actor}, ${audit.action}, ${audit.queue}, ${audit.target ?? null}::text, 0, ${audit.source ?? 'console'})`.execute(
        trx,
      );
      return result;
    });
  }
}

/** The id of the live API-made queue of this name; the errors of a queue that is not one. */
async function requireApiQueue(tx: Tx, name: string): Promise<number> {
  const found = await sql<{ id: number; source: string }>`/* api_queue_require */
    select id, source from ${table(tx, 'queues')} where name = ${name} and active for update`.execute(tx.db);
  const row = found.rows[0];
  if (row === undefined) throw new QueueError('UNKNOWN_QUEUE', `queue "${name}" does not exist`, { queue: name });
  if (row.source !== 'api') throw ownedByFile(name);
  return row.id;
}

/** The refusal of an API change to a queue its file defines. */
export function ownedByFile(name: string): QueueError {
  return new QueueError(
    'QUEUE_OWNED_ELSEWHERE',
    `Queue "${name}" is defined in queue.xml/queue.yaml: the file owns it. Change it there and deploy; ` +
      'the API changes only queues made through the API (pause, resume and purge work on both).',
    { queue: name },
  );
}

/** Inserts (or takes over: `create`) or updates the queue's row as an API-made queue; returns its id. */
async function writeRow(tx: Tx, config: QueueConfig, create: boolean): Promise<number> {
  const definition = JSON.stringify(storedQueue({ ...config, origin: 'api' }));
  // With this process's resolved base URL, as a deploy writes it: the SQL API's add_push_task reads it.
  const push = config.push ? JSON.stringify(config.push) : null;
  const columns = {
    mode: config.mode,
    maxLeases: config.maxLeases,
    storage: config.storageLimitBytes,
    calls: config.leaseRate?.calls ?? null,
    seconds: config.leaseRate?.windowSeconds ?? null,
  };
  if (!create) {
    await sql`/* api_queue_update */
      update ${table(tx, 'queues')}
         set mode = ${columns.mode}, max_leases = ${columns.maxLeases}, storage_limit_bytes = ${columns.storage}::int8,
             lease_rate_calls = ${columns.calls}::int4, lease_rate_seconds = ${columns.seconds}::int4,
             push_settings = ${push}::jsonb, definition = ${definition}::jsonb, updated_at = now()
       where name = ${config.name} and source = 'api' and active`.execute(tx.db);
    const id = await sql<{ id: number }>`/* api_queue_id */
      select id from ${table(tx, 'queues')} where name = ${config.name}`.execute(tx.db);
    return id.rows[0]!.id;
  }
  const result = await sql<{ id: number }>`/* api_queue_create */
    insert into ${table(tx, 'queues')} as q
           (name, mode, max_leases, storage_limit_bytes, lease_rate_calls, lease_rate_seconds, push_settings, definition,
            active, source, deleted_at, paused, paused_at)
    values (${config.name}, ${columns.mode}, ${columns.maxLeases}, ${columns.storage}::int8, ${columns.calls}::int4,
            ${columns.seconds}::int4, ${push}::jsonb, ${definition}::jsonb, true, 'api', null, false, null)
    on conflict (name) do update
      set mode = excluded.mode, max_leases = excluded.max_leases, storage_limit_bytes = excluded.storage_limit_bytes,
          lease_rate_calls = excluded.lease_rate_calls, lease_rate_seconds = excluded.lease_rate_seconds,
          push_settings = excluded.push_settings, definition = excluded.definition, active = true, source = 'api',
          deleted_at = null, paused = false, paused_at = null, updated_at = excluded.updated_at
    returning q.id`.execute(tx.db);
  return result.rows[0]!.id;
}

/** jsonb arrives parsed (pg) or as text (some drivers). */
function parsed<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
