import type { Readiness } from '../http/app-deps.js';
import type { OpenTaskQueue } from '../open-task-queue.js';

/**
 * The server's readiness (GET /readyz): not while it stops; not while the
 * database does not answer; not while the schema is behind the migrations
 * this server needs (another process may be migrating it, or an operator
 * must run `taskqueue migrate`); not while it serves older queue
 * definitions than the database's (another owner wrote new ones: the
 * load balancer drains it until it restarts on them).
 */
export function readinessCheck(service: Pick<OpenTaskQueue, 'schema' | 'schemaStatus' | 'definitionsStatus'>, stopping: AbortSignal): () => Promise<Readiness> {
  return async () => {
    if (stopping.aborted) return { ready: false, reason: 'stopping', message: 'the server is shutting down' };
    let status: { current: number; latest: number };
    let definitions: { serving: number | null; current: number | null };
    try {
      status = await service.schemaStatus();
      definitions = status.current < status.latest ? { serving: null, current: null } : await service.definitionsStatus();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ready: false, reason: 'database', message };
    }
    if (status.current < status.latest) {
      return {
        ready: false,
        reason: 'migrations',
        message: `the schema ${service.schema} is at migration ${status.current}, this server needs ${status.latest}: run taskqueue migrate`,
      };
    }
    if (definitions.serving !== definitions.current) {
      return {
        ready: false,
        reason: 'definitions',
        message: `the queue definitions changed: the database is at revision ${String(definitions.current)}, this server serves ${String(definitions.serving)}; restart it`,
      };
    }
    return { ready: true };
  };
}
