import { toExportLine } from '../../core/task-export.js';
import type { Task } from '../../core/task.js';
import type { RestMethod } from '../rest-handler.js';

/** Tasks per page read for an export: at most 100 MB of payloads in memory at once. */
const PAGE = 100;

/**
 * Operator extension: `GET /taskqueue/admin/v1/taskqueues/{queue}/tasks/export`
 * streams every live task of the queue, in ETA order, as JSON lines
 * (`application/x-ndjson`, core/task-export.ts), reading a page when the
 * client has taken the previous one. A failure part-way aborts the
 * response, so a client never takes a cut-off export for a whole one.
 */
export const ADMIN_EXPORT_TASKS: RestMethod = {
  action: 'queue.admin',
  shape: null,
  async run({ c, queue }) {
    const encoder = new TextEncoder();
    // The first page is read before answering: a failure then is a proper error response, not a cut 200.
    let page: Task[] = await queue.browseTasks({ limit: PAGE });
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const current = page;
        const last = current[current.length - 1];
        if (current.length > 0) controller.enqueue(encoder.encode(current.map((task) => `${JSON.stringify(toExportLine(task))}\n`).join('')));
        if (current.length < PAGE || !last) return controller.close();
        page = await queue.browseTasks({ limit: PAGE, after: last });
      },
    });
    return c.body(stream, 200, { 'content-type': 'application/x-ndjson; charset=UTF-8', 'cache-control': 'no-store' });
  },
};
