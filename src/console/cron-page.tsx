import type { Context } from 'hono';
import { isFailing, type CronFiringEntry } from '../core/cron/cron-history.js';
import type { CronJobStatus } from '../core/cron/cron-service.js';
import type { ConsoleContext } from './console-deps.js';
import type { Viewer } from './console-viewer.js';
import { CronOutcome } from './cron-outcome.js';
import { readableQueues } from './readable.js';
import { renderPage } from './render-page.js';
import { When } from './when.js';

/** Firings of each job the list reads to say whether it is failing. */
const RECENT = 5;

/** A job on the cron page: its record, and its latest firings with their outcomes (empty without the service's history). */
export interface CronJobRow {
  readonly job: CronJobStatus;
  readonly recent: readonly CronFiringEntry[];
}

/**
 * The cron jobs the servers run: schedule, next firings, and how its
 * latest firings ended (delivered, retrying, failed), failing jobs first
 * and marked. Each viewer sees the jobs of queues they may read.
 */
export async function cronPage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const jobs = ctx.cronJobs === null ? [] : await ctx.cronJobs();
  const readable = new Set((await readableQueues(viewer, ctx.service.queues())).map((queue) => queue.name));
  const shown = viewer.admin ? jobs : jobs.filter((job) => readable.has(job.queue));
  const rows = await Promise.all(
    shown.map(async (job) => ({ job, recent: ctx.cron === null ? [] : await ctx.cron.history(job.name, RECENT) })),
  );
  // What needs a human first: failing jobs, then the rest in name order.
  rows.sort((a, b) => Number(isFailing(b.recent)) - Number(isFailing(a.recent)));
  return renderPage(c, { title: 'Cron jobs', viewer, body: <CronPage rows={rows} nowMs={Date.now()} /> });
}

export function CronPage(props: { readonly rows: readonly CronJobRow[]; readonly nowMs: number }) {
  return (
    <section>
      <h1>Cron jobs</h1>
      <table class="cards" id="cron-table">
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">Status</th>
            <th scope="col">Schedule</th>
            <th scope="col">URL</th>
            <th scope="col">Queue</th>
            <th scope="col">Next firings</th>
            <th scope="col">Last firing</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map(({ job, recent }) => {
            const failing = isFailing(recent);
            const latest = recent[0];
            return (
              <tr
                data-job={job.name}
                data-outcome={job.lastOutcome ?? 'never'}
                data-failing={failing ? 'true' : undefined}
                data-retired={job.retiredAt === null ? undefined : 'true'}
                class={failing ? 'failing' : undefined}
              >
                <td data-label="Job" title={job.description ?? ''}>
                  <a href={`/console/cron/${encodeURIComponent(job.name)}`}>{job.name}</a>
                  {job.retiredAt !== null && (
                    <>
                      {' '}
                      <small title="Not in the cron file of the last server started; servers started from an older file may still fire it.">
                        (retired <When usec={job.retiredAt.getTime() * 1000} nowMs={props.nowMs} />)
                      </small>
                    </>
                  )}
                </td>
                <td data-label="Status" class="cron-status">
                  <JobStatus job={job} latest={latest ?? null} />
                </td>
                <td data-label="Schedule">{`${job.schedule} (${job.timezone})`}</td>
                <td data-label="URL" class="url">
                  {job.url}
                </td>
                <td data-label="Queue">
                  <a href={`/console/queues/${encodeURIComponent(job.queue)}`}>{job.queue}</a>
                </td>
                <td data-label="Next firings">
                  {job.retiredAt !== null ? (
                    <span class="hint">none: retired</span>
                  ) : (
                    job.next.map((at, i) => (
                      <>
                        {i > 0 ? ', ' : ''}
                        <When usec={at.getTime() * 1000} nowMs={props.nowMs} absolute />
                      </>
                    ))
                  )}
                </td>
                <td data-label="Last firing">
                  {job.lastFiredAt === null ? (
                    'never'
                  ) : (
                    <When usec={job.lastFiredAt.getTime() * 1000} nowMs={props.nowMs} />
                  )}
                </td>
              </tr>
            );
          })}
          {props.rows.length === 0 && (
            <tr>
              <td colspan={7}>No cron jobs: a server records them when it starts with a cron.yaml (docs/cron.md).</td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}

/**
 * A job's state in a word: failing (its latest firing that ended failed,
 * or is retrying), else how its last firing went; the firing could not be
 * added (skipped, failed to add) says so whatever its task did.
 */
function JobStatus(props: { readonly job: CronJobStatus; readonly latest: CronFiringEntry | null }) {
  const { job, latest } = props;
  if (job.lastOutcome === 'skipped' || job.lastOutcome === 'failed') {
    return (
      <span class="badge dead">{`${job.lastOutcome === 'failed' ? 'not added' : 'skipped'}: ${job.lastError ?? ''}`}</span>
    );
  }
  if (latest === null)
    return <span class="hint">{job.lastOutcome === null ? 'never fired' : `added ${job.lastTask ?? ''}`}</span>;
  return <CronOutcome entry={latest} />;
}
