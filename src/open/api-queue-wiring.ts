import { withPushBaseUrl, type QueueConfig, type ServiceConfig } from '../core/queue-config.js';
import { PgApiQueueStore } from '../store/definitions/api-queues.js';
import type { StoreContext } from '../store/store-context.js';

/** An API-made queue as this process serves it: its push base URL resolved as the file's queues' are. */
export function apiQueueResolver(
  pushBaseUrl: string | null,
  targetUrls: ReadonlyMap<string, string>,
): (queue: QueueConfig) => QueueConfig {
  return (queue) =>
    withPushBaseUrl(
      { source: 'api', totalStorageLimitBytes: null, adminEmails: [], queues: [queue] },
      pushBaseUrl,
      targetUrls,
    ).queues[0]!;
}

/**
 * The served configuration with the database's API-made queues after the
 * file's (a name in both stays the file's), and their ids: what a process
 * serves from its start; the service reloads them as they change.
 */
export async function withStoredApiQueues(
  ctx: StoreContext,
  config: ServiceConfig,
  ids: ReadonlyMap<string, number>,
  resolve: (queue: QueueConfig) => QueueConfig,
): Promise<{ readonly config: ServiceConfig; readonly ids: ReadonlyMap<string, number> }> {
  const rows = await new PgApiQueueStore(ctx).listApiQueues();
  const named = new Set(config.queues.map((queue) => queue.name));
  const api = rows.filter((row) => !named.has(row.config.name));
  return {
    config: { ...config, queues: [...config.queues, ...api.map((row) => resolve({ ...row.config, origin: 'api' }))] },
    ids: new Map([...ids, ...api.map((row) => [row.config.name, row.id] as const)]),
  };
}
