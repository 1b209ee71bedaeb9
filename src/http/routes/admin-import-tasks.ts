import { QueueError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { parseExportLine } from '../../core/task-export.js';
import { HttpError } from '../http-error.js';
import { jsonEtag } from '../etag.js';
import { readBody } from '../read-body.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';
import { flatShape, operationsOf } from './admin-operator.js';

/** Largest import body: 100 tasks of JSON lines, their payloads in base64. */
const MAX_IMPORT_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Operator extension: `POST /taskqueue/admin/v1/taskqueues/{queue}/tasks/import`
 * with up to 100 export lines (JSON lines, as `.../tasks/export` writes
 * them) adds them in one statement, all or nothing, under their names and
 * ETAs; answers `{"name": ..., "imported": N}`. A bad line is 400 naming it.
 * The body must say it is JSON lines (`application/x-ndjson`; also
 * `application/jsonl`, `application/x-jsonlines` or `application/json`):
 * anything else is 415, before anything is read. Recorded in the audit log
 * by the core.
 */
export const ADMIN_IMPORT_TASKS: RestMethod = {
  action: 'queue.admin',
  shape: flatShape('name', 'imported'),
  async run(call) {
    const { c, params, queue } = call;
    requireJsonLines(c.req.header('content-type'));
    const text = (await readBody(c, MAX_IMPORT_BODY_BYTES)).toString('utf8');
    const lines = text.split('\n').flatMap((line, i) => (line.trim() === '' ? [] : [{ line, number: i + 1 }]));
    if (lines.length > LIMITS.maxTasksPerAdd) {
      throw new QueueError(
        'TOO_MANY_TASKS',
        `at most ${LIMITS.maxTasksPerAdd} tasks per import request, got ${lines.length}`,
      );
    }
    const tasks = lines.map(({ line, number }) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new QueueError('INVALID_REQUEST', `line ${number} is not JSON`, { line: number });
      }
      return parseExportLine(value, number);
    });
    // Exported generated names come back under their names (never on the public tasks.insert).
    const body = { name: queue.name, imported: await operationsOf(call).importTasks(tasks) };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};

/** Media types of JSON lines: what `taskqueue import --url` sends, and its common spellings. */
const JSON_LINES = new Set([
  'application/x-ndjson',
  'application/jsonl',
  'application/x-jsonlines',
  'application/json',
]);

function requireJsonLines(contentType: string | undefined): void {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === undefined || !JSON_LINES.has(type)) {
    throw new HttpError(
      415,
      'unsupportedMediaType',
      `Content-Type must be application/x-ndjson (JSON lines), got ${contentType === undefined ? 'none' : JSON.stringify(contentType.slice(0, 100))}`,
      {
        location: { type: 'header', name: 'Content-Type' },
      },
    );
  }
}
