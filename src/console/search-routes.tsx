import type { Context } from 'hono';
import { isQueueError } from '../core/errors.js';
import type { ConsoleContext } from './console-deps.js';
import { showError } from './console-errors.js';
import type { Viewer } from './console-viewer.js';
import { queueView } from './queue-routes.js';
import { renderPage } from './render-page.js';
import { searchFields, searchFilterOf, searchFormOf } from './task-search-filter.js';
import { TaskSearchPage, type TaskSearchPageData } from './task-search-page.js';

/** Tasks per page of a search in the console. */
const SEARCH_PAGE = 50;

/**
 * `/console/queues/{queue}/search?name=&tag=&state=&error=&payload=[&cursor=]`:
 * one bounded request of a task search (core/task-search.ts), for whoever
 * may list the queue's tasks. A read: nothing is recorded. A filter the
 * core refuses is shown on the page, with the form to mend it (400).
 */
export async function searchPage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const view = await queueView(c, ctx, viewer);
  if (view instanceof Response) return view;
  const { config, overview, pausedBy, base } = view;
  if (!(await viewer.may(config, 'task.list'))) {
    return showError(
      c,
      viewer,
      403,
      'Not for you',
      "Your access lets you see this queue's figures, not its tasks.",
      base,
    );
  }
  const form = searchFormOf((name) => c.req.query(name));
  const cursor = c.req.query('cursor') ?? '';
  const nowMs = Date.now();
  let result: TaskSearchPageData['result'] = null;
  let problem: string | null = null;
  try {
    const page = await ctx.service.getQueue(config.name).searchTasks({
      ...searchFilterOf(form),
      limit: SEARCH_PAGE,
      ...(cursor === '' ? {} : { cursor }),
    });
    result = {
      tasks: page.tasks,
      scanned: page.scanned,
      bounded: page.bounded,
      next:
        page.next === null
          ? null
          : `${base}/search?${new URLSearchParams({ ...searchFields(form), cursor: page.next }).toString()}`,
      continued: cursor !== '',
    };
  } catch (error) {
    if (!isQueueError(error, 'INVALID_REQUEST') && !isQueueError(error, 'INVALID_TAG')) throw error;
    problem = `Cannot search: ${error.message}.`;
  }
  const data: TaskSearchPageData = { overview, pausedBy, form, result, problem, nowMs };
  return renderPage(
    c,
    { title: `${config.name}: search`, viewer, body: <TaskSearchPage viewer={viewer} data={data} /> },
    problem === null ? 200 : 400,
  );
}
