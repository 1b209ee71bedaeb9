import type { Context } from 'hono';
import type { CronJobStatus } from '../core/cron/cron-service.js';
import type { ConsoleContext } from './console-deps.js';
import type { Viewer } from './console-viewer.js';
import { readableQueues } from './readable.js';
import { renderPage } from './render-page.js';
import { When } from './when.js';

/** The cron jobs the servers run: schedule, next firings and the last one with its outcome. Each viewer sees the jobs of queues they may read. */
export async function cronPage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const jobs = ctx.cronJobs === null ? [] : await ctx.cronJobs();
  const readable = new Set((await readableQueues(viewer, ctx.service.queues())).map((queue) => queue.name));
  const shown = viewer.admin ? jobs : jobs.filter((job) => readable.has(job.queue));
  return renderPage(c, { title: 'Cron jobs', viewer, body: <CronPage jobs={shown} nowMs={Date.now()} /> });
}

export function CronPage(props: { readonly jobs: readonly CronJobStatus[]; readonly nowMs: number }) {
  return (
    <section>
      <h1>Cron jobs</h1>
      <table class="cards" id="cron-table">
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">Schedule</th>
            <th scope="col">URL</th>
            <th scope="col">Queue</th>
            <th scope="col">Next firings</th>
            <th scope="col">Last firing</th>
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {props.jobs.map((job) => (
            <tr
              data-job={job.name}
              data-outcome={job.lastOutcome ?? 'never'}
              data-retired={job.retiredAt === null ? undefined : 'true'}
            >
              <td data-label="Job" title={job.description ?? ''}>
                {job.name}
                {job.retiredAt !== null && (
                  <>
                    {' '}
                    <small title="Not in the cron file of the last server started; servers started from an older file may still fire it.">
                      (retired <When usec={job.retiredAt.getTime() * 1000} nowMs={props.nowMs} />)
                    </small>
                  </>
                )}
              </td>
              <td data-label="Schedule">{`${job.schedule} (${job.timezone})`}</td>
              <td data-label="URL">{job.url}</td>
              <td data-label="Queue">
                <a href={`/console/queues/${encodeURIComponent(job.queue)}`}>{job.queue}</a>
              </td>
              <td data-label="Next firings">
                {job.next.map((at, i) => (
                  <>
                    {i > 0 ? ', ' : ''}
                    <When usec={at.getTime() * 1000} nowMs={props.nowMs} absolute />
                  </>
                ))}
              </td>
              <td data-label="Last firing">
                {job.lastFiredAt === null ? (
                  'never'
                ) : (
                  <When usec={job.lastFiredAt.getTime() * 1000} nowMs={props.nowMs} />
                )}
              </td>
              <td data-label="Outcome" class={job.lastOutcome === null || job.lastOutcome === 'added' ? '' : 'warning'}>
                {job.lastOutcome === null
                  ? ''
                  : job.lastOutcome === 'added'
                    ? `added ${job.lastTask ?? ''}`
                    : `${job.lastOutcome}: ${job.lastError ?? ''}`}
              </td>
            </tr>
          ))}
          {props.jobs.length === 0 && (
            <tr>
              <td colspan={7}>No cron jobs: a server records them when it starts with a cron.yaml (docs/cron.md).</td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}
