import type { RestMethod } from '../rest-handler.js';
import { NO_FIELDS, operationsOf } from './admin-operator.js';

/**
 * Operator extension: `GET /taskqueue/admin/v1/taskqueues/{queue}/tasks/export`
 * streams every live task of the queue, in ETA order, as JSON lines
 * (`application/x-ndjson`, core/task-export.ts), reading a page when the
 * client has taken the previous one (QueueOperations.exportTasks, which
 * records the export in the audit log when it ends). A failure part-way
 * aborts the response, so a client never takes a cut-off export for a
 * whole one.
 */
export const ADMIN_EXPORT_TASKS: RestMethod = {
  action: 'queue.admin',
  shape: NO_FIELDS,
  async run(call) {
    const encoder = new TextEncoder();
    const pages = operationsOf(call).exportTasks();
    // The first page is read before answering: a failure then is a proper error response, not a cut 200.
    let next = await pages.next();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(next.value.map((line) => `${JSON.stringify(line)}\n`).join('')));
        next = await pages.next();
      },
      // The client went away: end the export (its audit entry counts what went out).
      async cancel() {
        await pages.return();
      },
    });
    return call.c.body(stream, 200, {
      'content-type': 'application/x-ndjson; charset=UTF-8',
      'cache-control': 'no-store',
    });
  },
};
