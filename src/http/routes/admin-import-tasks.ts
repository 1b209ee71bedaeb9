import { QueueError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { importedTask, parseExportLine } from '../../core/task-export.js';
import { jsonEtag } from '../etag.js';
import { readBody } from '../read-body.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';

/** Largest import body: 100 tasks of JSON lines, their payloads in base64. */
const MAX_IMPORT_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Operator extension: `POST /taskqueue/admin/v1/taskqueues/{queue}/tasks/import`
 * with up to 100 export lines (JSON lines, as `.../tasks/export` writes
 * them) adds them in one statement, all or nothing, under their names and
 * ETAs; answers `{"name": ..., "imported": N}`. A bad line is 400 naming it.
 */
export const ADMIN_IMPORT_TASKS: RestMethod = {
  action: 'queue.admin',
  shape: null,
  async run({ c, params, queue }) {
    const text = (await readBody(c, MAX_IMPORT_BODY_BYTES)).toString('utf8');
    const lines = text.split('\n').flatMap((line, i) => (line.trim() === '' ? [] : [{ line, number: i + 1 }]));
    if (lines.length > LIMITS.maxTasksPerAdd) {
      throw new QueueError('TOO_MANY_TASKS', `at most ${LIMITS.maxTasksPerAdd} tasks per import request, got ${lines.length}`);
    }
    const tasks = lines.map(({ line, number }) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new QueueError('INVALID_REQUEST', `line ${number} is not JSON`, { line: number });
      }
      return importedTask(parseExportLine(value, number));
    });
    // restore: exported generated names come back under their names (never on the public tasks.insert).
    const added = tasks.length === 0 ? [] : await queue.add(tasks, { restore: true });
    const body = { name: queue.name, imported: added.length };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};
