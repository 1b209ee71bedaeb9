import type { Readiness } from '../http/app-deps.js';
import type { OpenTaskQueue } from '../open-task-queue.js';

/**
 * The server's readiness (GET /readyz): not while it stops; not while the
 * database does not answer; not while the schema is behind the migrations
 * this server needs (another process may be migrating it, or an operator
 * must run `taskqueue migrate`). Serving older queue definitions than the
 * database's does not make it unready (store/definitions/definitions-watch.ts says why).
 */
export function readinessCheck(
  service: Pick<OpenTaskQueue, 'schema' | 'schemaStatus'>,
  stopping: AbortSignal,
): () => Promise<Readiness> {
  return async () => {
    if (stopping.aborted) return { ready: false, reason: 'stopping', message: 'the server is shutting down' };
    let status: { current: number; latest: number };
    try {
      status = await service.schemaStatus();
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
    return { ready: true };
  };
}
