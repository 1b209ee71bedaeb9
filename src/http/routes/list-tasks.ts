import { LIMITS } from '../../core/limits.js';
import { tasksEtag } from '../etag.js';
import { invalidParameter } from '../http-error.js';
import { decodePageToken, encodePageToken } from '../page-token.js';
import { RESPONSE_SHAPES } from '../response-shapes.js';
import type { RestMethod } from '../rest-handler.js';
import { taskJson, tasksJson } from '../task-json.js';
import { writeJson } from '../write-json.js';

/** Page size when `maxResults` is not given (AppScale listed up to 100). */
export const DEFAULT_LIST_PAGE_SIZE = 100;

/** Largest page: the core lists at most this many tasks per call. */
const MAX_LIST_PAGE_SIZE = LIMITS.maxTasksPerLease;

/**
 * tasks.list: `GET .../tasks[?maxResults=N&pageToken=T]`: live tasks in ETA
 * order, without payloads; an empty page has no `items`. `nextPageToken` is set when more tasks may
 * follow; `pageToken` (or its alias `nextPageToken`, the spelling spec
 * section 4.3 uses) continues after it. Keyset paging: a task added or
 * leased between two pages moves in the order, so a page may repeat or skip
 * it, but never fails.
 */
export const LIST_TASKS: RestMethod = {
  action: 'task.list',
  shape: RESPONSE_SHAPES.listedTasks,
  async run({ c, query, params, project, queue }) {
    const maxResults = query.integer('maxResults', { min: 1, max: MAX_LIST_PAGE_SIZE }) ?? DEFAULT_LIST_PAGE_SIZE;
    const token = query.string('pageToken');
    const alias = query.string('nextPageToken');
    if (token !== undefined && alias !== undefined) {
      throw invalidParameter('nextPageToken', 'Give either pageToken or nextPageToken, not both');
    }
    const after = token ?? alias;
    // One task more than asked tells whether another page follows (the core's limit caps it at 1000).
    const tasks = await queue.listTasks({
      limit: Math.min(maxResults + 1, MAX_LIST_PAGE_SIZE),
      withoutPayload: true,
      ...(after === undefined
        ? {}
        : { after: decodePageToken(after, token === undefined ? 'nextPageToken' : 'pageToken') }),
    });
    const page = tasks.slice(0, maxResults);
    const last = page[page.length - 1];
    const more = tasks.length > maxResults || tasks.length === MAX_LIST_PAGE_SIZE;
    const nextPageToken = more && last ? encodePageToken(last) : undefined;
    const body = {
      ...tasksJson(page.map((task) => taskJson(task, project, { withPayload: false }))),
      ...(nextPageToken === undefined ? {} : { nextPageToken }),
    };
    const etag = tasksEtag(page, nextPageToken ?? '');
    return writeJson(c, params, { body, etag });
  },
};
