import { DEFAULT_RETRY_PARAMETERS, type QueueConfig, type ServiceConfig } from '../core/queue-config.js';
import { toNumber, type StoreContext } from './store-context.js';

/** The queues a database serves: its configuration as the servers last wrote it, with each queue's id. */
export interface ConfiguredQueues {
  readonly config: ServiceConfig;
  readonly ids: ReadonlyMap<string, number>;
}

/**
 * The active queues of the `queues` table, as a configuration. Operator
 * tools read the queues from the database instead of a queue.xml of their
 * own, so they never rewrite what the servers configured (syncQueues would
 * mark every queue their file lacks inactive). ACLs live only in the
 * configuration file, so they come back empty: these tools do not check
 * them, their user holds the database credentials.
 */
export async function configuredQueues(ctx: StoreContext): Promise<ConfiguredQueues> {
  const rows = await ctx.db
    .withSchema(ctx.schema)
    .selectFrom('queues')
    .select(['id', 'name', 'mode', 'max_leases', 'storage_limit_bytes', 'lease_rate_calls', 'lease_rate_seconds'])
    .where('active', '=', true)
    .orderBy('name')
    .execute();
  const queues: QueueConfig[] = rows.map((row) => ({
    name: row.name,
    mode: row.mode,
    maxLeases: row.max_leases,
    storageLimitBytes: row.storage_limit_bytes === null ? null : toNumber(row.storage_limit_bytes),
    leaseRate:
      row.lease_rate_calls === null || row.lease_rate_seconds === null ? null : { calls: row.lease_rate_calls, windowSeconds: row.lease_rate_seconds },
    // Retry parameters live only in the configuration file, like ACLs:
    // the operator tools that read this never schedule a retry.
    retry: DEFAULT_RETRY_PARAMETERS,
    acl: { userEmails: [], writerEmails: [] },
  }));
  return {
    config: { source: 'the database', totalStorageLimitBytes: null, adminEmails: [], queues },
    ids: new Map(rows.map((row) => [row.name, row.id])),
  };
}
