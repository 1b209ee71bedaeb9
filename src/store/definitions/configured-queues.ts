import { sql } from 'kysely';
import {
  DEFAULT_RETRY_PARAMETERS,
  type PushQueueSettings,
  type QueueConfig,
  type ServiceConfig,
} from '../../core/queue-config.js';
import type { DefinitionsRevision } from '../../core/queue-definitions.js';
import { table, toNumber, type StoreContext } from '../store-context.js';

/** The queues a database serves: its configuration as the owner last wrote it, with each queue's id. */
export interface ConfiguredQueues {
  readonly config: ServiceConfig;
  readonly ids: ReadonlyMap<string, number>;
  /** The newest write of the definitions; null on a database written before sql/0018 (or never). */
  readonly revision: DefinitionsRevision | null;
  /** Queues whose row predates sql/0018: their retry parameters and ACL are not known (defaults stand in). */
  readonly partial: ReadonlySet<string>;
  /** Whether the queues table has any row at all, active or not (false: a fresh database). */
  readonly anyQueue: boolean;
}

/**
 * The active queues of the `queues` table that a file defines (not those
 * made through the Cloud Tasks API, sql/0021), as a configuration. A process
 * with no configuration of its own serves these, so it never rewrites what
 * the owner configured (writing its own would mark every queue it lacks
 * inactive). Each row's `definition` (sql/0018) holds the whole queue, ACL
 * and retry parameters included; an older row gives its columns, with the
 * default retry parameters and an empty ACL.
 */
export async function configuredQueues(ctx: StoreContext): Promise<ConfiguredQueues> {
  const rows = await ctx.db
    .withSchema(ctx.schema)
    .selectFrom('queues')
    .select([
      'id',
      'name',
      'active',
      'mode',
      'max_leases',
      'storage_limit_bytes',
      'lease_rate_calls',
      'lease_rate_seconds',
      'push_settings',
      'definition',
      'source',
    ])
    .orderBy('name')
    .execute();
  // API-made queues are not the file's definitions (api-queues.ts serves them).
  const active = rows.filter((row) => row.active && row.source === 'file');
  const partial = new Set<string>();
  const queues: QueueConfig[] = active.map((row) => {
    if (row.definition !== null && row.definition !== undefined)
      return { ...parsed<QueueConfig>(row.definition), name: row.name };
    partial.add(row.name);
    return {
      name: row.name,
      mode: row.mode,
      maxLeases: row.max_leases,
      storageLimitBytes: row.storage_limit_bytes === null ? null : toNumber(row.storage_limit_bytes),
      leaseRate:
        row.lease_rate_calls === null || row.lease_rate_seconds === null
          ? null
          : { calls: row.lease_rate_calls, windowSeconds: row.lease_rate_seconds },
      retry: DEFAULT_RETRY_PARAMETERS,
      acl: { userEmails: [], writerEmails: [] },
      ...(row.push_settings ? { push: parsed<PushQueueSettings>(row.push_settings) } : {}),
    };
  });
  const current = await currentRevision(ctx);
  const limit = await sql<{ value: string | null }>`/* configured_total_limit */
    select value from ${table(ctx, 'service_settings')} where name = 'total_storage_limit_bytes'`.execute(ctx.db);
  const totalLimit = limit.rows[0]?.value ?? null;
  return {
    config: {
      source: current === null ? 'the database' : `the database (revision ${current.revision}, from ${current.source})`,
      totalStorageLimitBytes: totalLimit === null ? null : toNumber(totalLimit),
      adminEmails: current?.adminEmails ?? [],
      queues,
    },
    ids: new Map(active.map((row) => [row.name, row.id])),
    revision: current,
    partial,
    anyQueue: rows.length > 0,
  };
}

/** The newest write of the definitions (null: none since sql/0018). */
export async function currentRevision(
  ctx: StoreContext,
): Promise<(DefinitionsRevision & { readonly adminEmails: string[] }) | null> {
  const result = await sql<{
    revision: string;
    fingerprint: string;
    source: string;
    written_at: Date;
    admin_emails: string[];
  }>`/* queue_definitions_current */
    select revision, fingerprint, source, written_at, admin_emails from ${table(ctx, 'queue_definitions')}
     order by revision desc limit 1`.execute(ctx.db);
  const row = result.rows[0];
  return row === undefined
    ? null
    : {
        revision: toNumber(row.revision),
        fingerprint: row.fingerprint,
        source: row.source,
        writtenAt: new Date(row.written_at),
        adminEmails: row.admin_emails,
      };
}

/** The newest earlier revision that wrote definitions with this fingerprint (null: never written). */
export async function revisionWith(ctx: StoreContext, fingerprint: string): Promise<DefinitionsRevision | null> {
  const result = await sql<{
    revision: string;
    fingerprint: string;
    source: string;
    written_at: Date;
  }>`/* queue_definitions_with */
    select revision, fingerprint, source, written_at from ${table(ctx, 'queue_definitions')}
     where fingerprint = ${fingerprint} order by revision desc limit 1`.execute(ctx.db);
  const row = result.rows[0];
  return row === undefined
    ? null
    : {
        revision: toNumber(row.revision),
        fingerprint: row.fingerprint,
        source: row.source,
        writtenAt: new Date(row.written_at),
      };
}

/** jsonb arrives parsed (pg) or as text (some drivers). */
function parsed<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
