import { ATTEMPTS_KEPT, type TaskAttempt } from '../core/task-attempt.js';
import { When } from './when.js';

/**
 * A task's (or dead letter's) attempts that did not succeed, newest first:
 * when each ended, how (failed, or a lease that lapsed), the HTTP status,
 * what went wrong (the transport's or worker's error, and the start of the
 * response body, as text: escaped, never rendered), and how long it took.
 * At most ATTEMPTS_KEPT; a success deletes the task, so none is listed.
 */
export function AttemptsTable(props: { readonly attempts: readonly TaskAttempt[]; readonly nowMs: number }) {
  return (
    <section class="attempts" aria-labelledby="attempts-heading">
      <h3 id="attempts-heading">Attempts</h3>
      {props.attempts.length === 0 ? (
        <p class="hint" id="attempts-none">
          No failed attempt recorded.
        </p>
      ) : (
        <table class="cards" id="attempts-table">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Ended</th>
              <th scope="col">Outcome</th>
              <th scope="col">Status</th>
              <th scope="col">What went wrong</th>
              <th scope="col">Took</th>
            </tr>
          </thead>
          <tbody>
            {props.attempts.map((a) => (
              <tr data-attempt={String(a.attempt)}>
                <td data-label="#">{String(a.attempt)}</td>
                <td data-label="Ended">
                  <When usec={a.endedUsec} nowMs={props.nowMs} />
                </td>
                <td data-label="Outcome">
                  <span class={`badge attempt-${a.outcome}`}>{a.outcome === 'lapsed' ? 'lease lapsed' : 'failed'}</span>
                </td>
                <td data-label="Status">
                  {a.httpStatus === null ? <span class="hint">none</span> : String(a.httpStatus)}
                </td>
                <td data-label="What went wrong">
                  {a.error ??
                    (a.outcome === 'lapsed' ? <span class="hint">not deleted before its lease ran out</span> : '')}
                  {a.responseExcerpt !== null && <pre class="excerpt">{a.responseExcerpt}</pre>}
                </td>
                <td data-label="Took">
                  {a.durationMs === null ? <span class="hint">n/a</span> : `${formatMs(a.durationMs)}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="hint">{`The last ${ATTEMPTS_KEPT} are kept.`}</p>
    </section>
  );
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
