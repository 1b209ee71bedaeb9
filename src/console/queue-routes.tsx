import type { Context } from 'hono';
import type { AuditEntry } from '../core/audit-log.js';
import { isQueueError } from '../core/errors.js';
import type { QueueConfig } from '../core/queue-config.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { QueueOperations } from '../core/queue-operations.js';
import type { TaskLeaseRef } from '../core/task-queue.js';
import type { TaskState } from '../core/task-store.js';
import { TASK_NAME_PATTERN } from '../core/task.js';
import { noticeOf } from './console-actions.js';
import type { ConsoleContext } from './console-deps.js';
import { showError } from './console-errors.js';
import type { Viewer } from './console-viewer.js';
import { QueuePage } from './queue-page.js';
import { readableQueue } from './readable.js';
import { renderPage } from './render-page.js';
import { TaskPage } from './task-page.js';

const TASK_PAGE = 50;

/** What every page of a queue starts from: the queue, its figures, and who paused it. */
export interface QueueView {
  readonly config: QueueConfig;
  readonly overview: QueueOverview;
  readonly pausedBy: AuditEntry | null;
  readonly base: string;
}

export async function queueView(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<QueueView | Response> {
  const config = await readableQueue(c, ctx, viewer);
  if (!config)
    return showError(c, viewer, 404, 'No such queue', 'There is no queue of that name that you may see.', '/console');
  const [overview] = await ctx.service.overview([config.name]);
  if (!overview) return showError(c, viewer, 404, 'No such queue', 'The queue is not in the database.', '/console');
  return {
    config,
    overview,
    pausedBy: overview.paused ? await whoPaused(ctx, config.name) : null,
    base: `/console/queues/${encodeURIComponent(config.name)}`,
  };
}

/** The audit entry of the pause in force: the latest pause or resume of the queue, when it is a pause. */
async function whoPaused(ctx: ConsoleContext, queue: string): Promise<AuditEntry | null> {
  const [latest] = await ctx.auditLog.list({ limit: 1, queue, actions: ['pause', 'resume'] });
  return latest?.action === 'pause' ? latest : null;
}

export async function queuePage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const view = await queueView(c, ctx, viewer);
  if (view instanceof Response) return view;
  const { config, overview, pausedBy, base } = view;
  const queue = operatorOf(ctx, config.name, viewer);
  const stateParam = c.req.query('state') ?? '';
  const state: TaskState | null =
    stateParam === 'available' || stateParam === 'leased' || stateParam === 'delayed' ? stateParam : null;
  const tagParam = c.req.query('tag') ?? '';
  const tag = tagParam === '' ? null : tagParam;
  const after = parseAfter(c.req.query('after'));
  const mayList = await viewer.may(config, 'task.list');

  // A task list one longer than the page tells whether a next page exists.
  const [page, tombstones] = mayList
    ? await Promise.all([
        queue.browseTasks({
          limit: TASK_PAGE + 1,
          ...(state === null ? {} : { state }),
          ...(tag === null ? {} : { tag }),
          ...(after === null ? {} : { after }),
        }),
        queue.listTombstones({ limit: 20 }),
      ])
    : [null, null];
  const tasks = page?.slice(0, TASK_PAGE) ?? null;
  let nextTasks: string | null = null;
  if (page && page.length > TASK_PAGE && tasks) {
    const last = tasks[tasks.length - 1]!;
    const query = new URLSearchParams({
      ...(state ? { state } : {}),
      ...(tag ? { tag } : {}),
      after: `${last.etaUsec}:${last.name}`,
    });
    nextTasks = `${base}?${query.toString()}`;
  }
  const data = {
    overview,
    pausedBy,
    tasks,
    filter: { state, tag },
    nextTasks,
    tombstones,
    notice: noticeOf(c.req.query('done'), c.req.query('n'), {
      push: overview.push !== undefined,
      of: c.req.query('of'),
    }),
    nowMs: Date.now(),
  };
  return renderPage(c, {
    title: config.name,
    viewer,
    refreshSeconds: ctx.refreshSeconds,
    body: <QueuePage viewer={viewer} data={data} />,
  });
}

/** The operator API of a queue for the viewer: the console's reads go through it as its actions do. */
export function operatorOf(ctx: ConsoleContext, name: string, viewer: Viewer): QueueOperations {
  return ctx.service.operate(name, { actor: viewer.email ?? 'anonymous', source: 'console' });
}

/** `?after=<etaUsec>:<name>`: where the next page of tasks starts. */
function parseAfter(value: string | undefined): TaskLeaseRef | null {
  const match = value === undefined ? null : /^(\d{1,17}):([a-zA-Z0-9_-]{1,500})$/.exec(value);
  return match ? { etaUsec: Number(match[1]), name: match[2] as string } : null;
}

/** One task in full. */
export async function taskPage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
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
  const name = c.req.param('task') ?? '';
  try {
    const task = await ctx.service.getQueue(config.name).getTask(name);
    const attempts = await operatorOf(ctx, config.name, viewer).attempts(task.name);
    return renderPage(c, {
      title: `${config.name}: ${task.name}`,
      viewer,
      body: (
        <TaskPage
          viewer={viewer}
          overview={overview}
          pausedBy={pausedBy}
          task={task}
          attempts={attempts}
          nowMs={Date.now()}
        />
      ),
    });
  } catch (error) {
    // A task the retry limit took is a dead letter, not a deleted task: its own page says so.
    if (
      isQueueError(error, 'TOMBSTONED_TASK') &&
      (await operatorOf(ctx, config.name, viewer).deadLetterDesk().get(name))
    )
      return c.redirect(`${base}/dead-letters/${encodeURIComponent(name)}`, 303);
    if (
      isQueueError(error, 'UNKNOWN_TASK') ||
      isQueueError(error, 'TOMBSTONED_TASK') ||
      isQueueError(error, 'INVALID_TASK_NAME')
    ) {
      return showError(c, viewer, 404, 'No such task', error.message, base);
    }
    throw error;
  }
}

/** The search by name: `?name=` goes to that task's page (a name is unique in its queue). */
export async function findTask(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const config = await readableQueue(c, ctx, viewer);
  if (!config)
    return showError(c, viewer, 404, 'No such queue', 'There is no queue of that name that you may see.', '/console');
  const base = `/console/queues/${encodeURIComponent(config.name)}`;
  const name = (c.req.query('name') ?? '').trim();
  if (!TASK_NAME_PATTERN.test(name)) {
    return showError(c, viewer, 400, 'No such task', 'A task name is 1 to 500 letters, digits, "-" or "_".', base);
  }
  return c.redirect(`${base}/tasks/${encodeURIComponent(name)}`, 303);
}

/**
 * A queue's charts over the last hour: depth from the samples of the
 * overview (in the database: every process's, and there since before this
 * process started), leases per minute from the database's lease history.
 */
export async function queueSeries(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const config = await readableQueue(c, ctx, viewer);
  if (!config) return c.json({ error: 'no such queue' }, 404);
  const [counts, depth] = await Promise.all([
    operatorOf(ctx, config.name, viewer).leasesPerMinute(),
    ctx.sampler.series(config.name),
  ]);
  return c.json({
    depth,
    leases: { at: counts.map((count) => count.minuteStart), tasks: counts.map((count) => count.tasks) },
  });
}
