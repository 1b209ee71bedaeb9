import { QueueError } from '../../core/errors.js';
import type { QueueConfig } from '../../core/queue-config.js';
import { authorize, isRefusal, json, queueResource, type V2Call } from './v2-call.js';
import { RpcError } from './rpc-status.js';

/** Cloud Tasks' largest page of queues. */
const MAX_PAGE = 9800;

/**
 * `queues.list`: the push queues served (the file's and the API-made ones)
 * the caller may read (`queue.get`; others are left out), by name, a page
 * at a time. The page token is opaque and stable: the last name of the
 * page and the filter, so a queue made or deleted between pages moves no
 * other one. `filter` takes Cloud Tasks' one field, `state: PAUSED` (or
 * RUNNING; `=` works too).
 */
export async function listQueues(call: V2Call): Promise<Response> {
  const filter = parseFilter(call.query.string('filter') ?? '');
  const pageSize = pageSizeOf(call.query.string('pageSize') ?? call.query.string('page_size'));
  const token = call.query.string('pageToken') ?? call.query.string('page_token');
  const after = token === undefined || token === '' ? null : readToken(token, filter.text);
  const candidates = call.deps.service
    .queues()
    .filter((queue) => queue.mode === 'push' && (after === null || queue.name > after))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const readable: QueueConfig[] = [];
  for (const queue of candidates) {
    try {
      await authorize(call, queue, 'queue.get');
      readable.push(queue);
    } catch (error) {
      if (!isRefusal(error)) throw error;
    }
  }
  const overview = readable.length === 0 ? [] : await call.deps.service.overview(readable.map((q) => q.name));
  const paused = new Map(overview.map((row) => [row.name, row.paused]));
  const matching = readable.filter(
    (queue) => filter.paused === null || (paused.get(queue.name) ?? false) === filter.paused,
  );
  const page = matching.slice(0, pageSize);
  const queues = await Promise.all(page.map((queue) => queueResource(call, queue, paused.get(queue.name) ?? false)));
  const more = matching.length > pageSize;
  return json(call, {
    ...(queues.length > 0 ? { queues } : {}),
    ...(more ? { nextPageToken: writeToken(page[page.length - 1]!.name, filter.text) } : {}),
  });
}

function parseFilter(text: string): { text: string; paused: boolean | null } {
  const trimmed = text.trim();
  if (trimmed === '') return { text: '', paused: null };
  const match = /^state\s*[:=]\s*(PAUSED|RUNNING)$/.exec(trimmed);
  if (match === null) {
    throw new RpcError(
      'INVALID_ARGUMENT',
      `Invalid filter ${JSON.stringify(text)}: the one filter served is "state: PAUSED" or "state: RUNNING"`,
    );
  }
  return { text: trimmed, paused: match[1] === 'PAUSED' };
}

function pageSizeOf(text: string | undefined): number {
  if (text === undefined || text === '') return MAX_PAGE;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new QueueError('INVALID_REQUEST', `Invalid value at 'page_size' (TYPE_INT32), ${JSON.stringify(text)}`, {
      field: 'page_size',
    });
  }
  return n === 0 ? MAX_PAGE : Math.min(n, MAX_PAGE);
}

function writeToken(after: string, filter: string): string {
  return Buffer.from(JSON.stringify({ v: 1, after, filter })).toString('base64url');
}

function readToken(token: string, filter: string): string {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      v?: unknown;
      after?: unknown;
      filter?: unknown;
    };
    if (value.v === 1 && typeof value.after === 'string' && value.filter === filter) return value.after;
  } catch {
    // Falls through to the refusal.
  }
  throw new RpcError('INVALID_ARGUMENT', 'Invalid page token: give the nextPageToken of a list with the same filter');
}
