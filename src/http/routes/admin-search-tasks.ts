import { SEARCH_PAGE_MAX, type SearchState } from '../../core/task-search.js';
import type { Task } from '../../core/task.js';
import { jsonEtag } from '../etag.js';
import type { ResponseShape } from '../fields/check-fields.js';
import type { RestMethod } from '../rest-handler.js';
import { writeJson } from '../write-json.js';
import { flatShape } from './admin-operator.js';

/** The query parameters of a search, each a field of core/task-search.ts's TaskSearchFilter. */
export const SEARCH_PARAMETERS = ['namePrefix', 'tag', 'tagPrefix', 'state', 'errorText', 'payloadText'] as const;

/** A task as a search lists it (the CLI's task record, without the queue): times in microseconds. */
export interface SearchItem {
  readonly name: string;
  readonly tag: string | null;
  readonly retryCount: number;
  readonly etaUsec: number;
  readonly enqueuedUsec: number;
  readonly lastError: string | null;
  readonly payloadBase64: string;
}

/** The body of a search's answer. */
export interface SearchJson {
  readonly kind: 'taskqueues#taskSearch';
  readonly items: SearchItem[];
  readonly scanned: number;
  readonly bounded: boolean;
  readonly nextPageToken?: string;
}

const SHAPE: ResponseShape = {
  type: 'object',
  properties: {
    kind: { type: 'value' },
    items: {
      type: 'array',
      items: flatShape('name', 'tag', 'retryCount', 'etaUsec', 'enqueuedUsec', 'lastError', 'payloadBase64'),
    },
    scanned: { type: 'value' },
    bounded: { type: 'value' },
    nextPageToken: { type: 'value' },
  },
};

function searchItem(task: Task): SearchItem {
  return {
    name: task.name,
    tag: task.tag,
    retryCount: task.retryCount,
    etaUsec: task.etaUsec,
    enqueuedUsec: task.enqueuedUsec,
    lastError: task.lastError ?? null,
    payloadBase64: task.payload.toString('base64'),
  };
}

/**
 * Operator extension: `GET /taskqueue/admin/v1/taskqueues/{queue}/tasks/search`
 * with `namePrefix`, `tag` or `tagPrefix`, `state` (available, leased,
 * delayed, failing), `errorText`, `payloadText`, `maxResults` (1 to 100,
 * default 50) and `pageToken`: one bounded request of a search
 * (core/task-search.ts). `scanned` counts the candidates read; `bounded`
 * says the request stopped at its scan limit rather than on a full page,
 * so `items` may be short or empty while `nextPageToken` goes on.
 */
export const ADMIN_SEARCH_TASKS: RestMethod = {
  action: 'queue.admin',
  shape: SHAPE,
  async run(call) {
    const { c, query, params, queue } = call;
    const limit = query.integer('maxResults', { min: 1, max: SEARCH_PAGE_MAX }) ?? 50;
    const filter: Record<string, string> = {};
    for (const name of SEARCH_PARAMETERS) {
      const value = query.string(name);
      if (value !== undefined && value !== '') filter[name] = value;
    }
    const cursor = query.string('pageToken');
    const page = await queue.searchTasks({
      ...filter,
      ...(filter.state === undefined ? {} : { state: filter.state as SearchState }),
      limit,
      ...(cursor === undefined || cursor === '' ? {} : { cursor }),
    });
    const body: SearchJson = {
      kind: 'taskqueues#taskSearch',
      items: page.tasks.map(searchItem),
      scanned: page.scanned,
      bounded: page.bounded,
      ...(page.next === null ? {} : { nextPageToken: page.next }),
    };
    return writeJson(c, params, { body, etag: jsonEtag(JSON.stringify(body)) });
  },
};
