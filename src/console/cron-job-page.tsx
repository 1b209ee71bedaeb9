import type { Context } from 'hono';
import { isFailing, type CronFiringEntry } from '../core/cron/cron-history.js';
import type { CronJobStatus } from '../core/cron/cron-service.js';
import { isQueueError } from '../core/errors.js';
import { ConfirmedForm } from './action-form.js';
import { guardAdminForm } from './action-guard.js';
import type { ConsoleContext } from './console-deps.js';
import { showError } from './console-errors.js';
import type { Viewer } from './console-viewer.js';
import { CronOutcome } from './cron-outcome.js';
import { readableQueues } from './readable.js';
import { renderPage } from './render-page.js';
import { When } from './when.js';

/** Firings a job's page lists. */
const HISTORY = 30;

/** The job of the request that the viewer may see (one of a queue they may read), or null. */
async function visibleJob(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<CronJobStatus | null> {
  const name = c.req.param('job') ?? '';
  const job = (ctx.cronJobs === null ? [] : await ctx.cronJobs()).find((candidate) => candidate.name === name);
  if (job === undefined) return null;
  if (viewer.admin) return job;
  const readable = await readableQueues(viewer, ctx.service.queues());
  return readable.some((queue) => queue.name === job.queue) ? job : null;
}

/** One cron job: its schedule, its latest firings with how each ended, and run-now (administrators). */
export async function cronJobPage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const job = await visibleJob(c, ctx, viewer);
  if (job === null)
    return showError(
      c,
      viewer,
      404,
      'No such cron job',
      'No server recorded a job of that name that you may see.',
      '/console/cron',
    );
  const history = ctx.cron === null ? [] : await ctx.cron.history(job.name, HISTORY);
  const ran = c.req.query('ran');
  return renderPage(c, {
    title: `Cron job ${job.name}`,
    viewer,
    body: (
      <CronJobPage
        viewer={viewer}
        job={job}
        history={history}
        notice={ran === undefined ? null : `Fired now: task ${ran}.`}
        runnable={ctx.cron !== null}
        nowMs={Date.now()}
      />
    ),
  });
}

/**
 * Fires the job now (administrators; the service records it through
 * `operate()` under the viewer's e-mail, source `console`), then back to
 * the job's page, whose history lists the new firing.
 */
export async function runCronJob(c: Context, ctx: ConsoleContext): Promise<Response> {
  const guarded = await guardAdminForm(c, ctx, 'run cron jobs');
  if (guarded instanceof Response) return guarded;
  const { viewer } = guarded;
  const name = c.req.param('job') ?? '';
  const back = `/console/cron/${encodeURIComponent(name)}`;
  if (ctx.cron === null) return showError(c, viewer, 404, 'Not here', 'This console cannot run cron jobs.', back);
  try {
    const firing = await ctx.cron.run(name, { actor: viewer.email ?? 'anonymous', source: 'console' });
    if (firing.outcome !== 'added') {
      return showError(c, viewer, 409, 'Not fired', `The firing was ${firing.outcome}: ${firing.error ?? ''}`, back);
    }
    return c.redirect(`${back}?ran=${encodeURIComponent(firing.task)}`, 303);
  } catch (error) {
    if (isQueueError(error, 'UNKNOWN_TASK'))
      return showError(c, viewer, 404, 'No such cron job', error.message, '/console/cron');
    throw error;
  }
}

export function CronJobPage(props: {
  readonly viewer: Viewer;
  readonly job: CronJobStatus;
  readonly history: readonly CronFiringEntry[];
  readonly notice: string | null;
  readonly runnable: boolean;
  readonly nowMs: number;
}) {
  const { job, nowMs } = props;
  const base = `/console/cron/${encodeURIComponent(job.name)}`;
  const queue = `/console/queues/${encodeURIComponent(job.queue)}`;
  return (
    <section>
      <p class="crumbs">
        <a href="/console/cron">Cron jobs</a> / {job.name}
      </p>
      <h1>
        {job.name} {isFailing(props.history) && <span class="badge dead">failing</span>}
        {job.retiredAt !== null && <span class="badge paused">retired</span>}
      </h1>
      {props.notice !== null && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      <dl class="details" id="cron-job-details">
        <dt>Schedule</dt>
        <dd>{`${job.schedule} (${job.timezone})`}</dd>
        <dt>URL</dt>
        <dd class="url">{job.url}</dd>
        <dt>Queue</dt>
        <dd>
          <a href={queue}>{job.queue}</a>
        </dd>
        <dt>Next firings</dt>
        <dd>
          {job.retiredAt !== null
            ? 'none: not in the cron file of the last server started'
            : job.next.map((at, i) => (
                <>
                  {i > 0 ? ', ' : ''}
                  <When usec={at.getTime() * 1000} nowMs={nowMs} absolute />
                </>
              ))}
        </dd>
      </dl>
      {props.viewer.admin && props.runnable && (
        <div class="actions">
          <ConfirmedForm viewer={props.viewer} action={`${base}/run`} confirm={`Fire ${job.name} now, once?`}>
            <button type="submit">Run now</button>
          </ConfirmedForm>
        </div>
      )}
      <h2>Latest firings</h2>
      <table class="cards" id="cron-history">
        <thead>
          <tr>
            <th scope="col">Firing</th>
            <th scope="col">Outcome</th>
            <th scope="col">When</th>
            <th scope="col">Task</th>
          </tr>
        </thead>
        <tbody>
          {props.history.map((entry) => (
            <tr data-firing={entry.task} data-firing-outcome={entry.outcome}>
              <td data-label="Firing">
                <When usec={entry.instant.getTime() * 1000} nowMs={nowMs} absolute />
                {entry.run ? ' (run now)' : ''}
              </td>
              <td data-label="Outcome">
                <CronOutcome entry={entry} />
              </td>
              <td data-label="When">
                <When usec={entry.at.getTime() * 1000} nowMs={nowMs} />
              </td>
              <td data-label="Task" class="name">
                <a href={firingLink(queue, entry)}>{entry.task}</a>
              </td>
            </tr>
          ))}
          {props.history.length === 0 && (
            <tr>
              <td colspan={4}>No firing in the retention period.</td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}

/** Where a firing's task is: its task page, its dead letter, or (delivered, gone) the queue. */
function firingLink(queue: string, entry: CronFiringEntry): string {
  if (entry.outcome === 'failed') return `${queue}/dead-letters/${encodeURIComponent(entry.task)}`;
  if (entry.outcome === 'delivered') return queue;
  return `${queue}/tasks/${encodeURIComponent(entry.task)}`;
}
