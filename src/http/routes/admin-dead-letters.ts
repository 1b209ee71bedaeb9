import { deadLetterRecord } from '../../core/dead-letter.js';
import { LIMITS } from '../../core/limits.js';
import { jsonEtag } from '../etag.js';
import type { ResponseShape } from '../fields/check-fields.js';
import { decodePageToken, encodePageToken } from '../page-token.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';
import { flatShape, operationsOf } from './admin-operator.js';

const SHAPE: ResponseShape = {
  type: 'object',
  properties: {
    kind: { type: 'value' },
    items: {
      type: 'array',
      items: flatShape('name', 'tag', 'retryCount', 'enqueuedUsec', 'diedUsec', 'payloadBase64'),
    },
    nextPageToken: { type: 'value' },
  },
};

/**
 * Operator extension: `GET /taskqueue/admin/v1/taskqueues/{queue}/deadLetters[?maxResults=N&pageToken=T]`
 * (and `tagPrefix`, `errorContains` to filter, `order=newest` for newest death first),
 * the tasks the retry limit dropped, oldest death first, with their
 * payloads; `nextPageToken` when more may follow (keyset on death time and
 * name, encoded like the task list's tokens).
 */
export const ADMIN_LIST_DEAD_LETTERS: RestMethod = {
  action: 'queue.admin',
  shape: SHAPE,
  async run(call) {
    const { c, query, params } = call;
    const maxResults = query.integer('maxResults', { min: 1, max: LIMITS.maxTasksPerLease }) ?? 100;
    const token = query.string('pageToken');
    const position = token === undefined ? undefined : decodePageToken(token, 'pageToken');
    const tagPrefix = query.string('tagPrefix');
    const errorContains = query.string('errorContains');
    const letters = await operationsOf(call)
      .deadLetterDesk()
      .list({
        limit: maxResults,
        ...(position === undefined ? {} : { after: { name: position.name, diedUsec: position.etaUsec } }),
        ...(tagPrefix === undefined ? {} : { tagPrefix }),
        ...(errorContains === undefined ? {} : { errorContains }),
        ...(query.string('order') === 'newest' ? { newestFirst: true } : {}),
      });
    const last = letters[letters.length - 1];
    const nextPageToken =
      letters.length === maxResults && last ? encodePageToken({ name: last.name, etaUsec: last.diedUsec }) : undefined;
    const body = {
      kind: 'taskqueues#deadLetters',
      items: letters.map(deadLetterRecord),
      ...(nextPageToken === undefined ? {} : { nextPageToken }),
    };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};
