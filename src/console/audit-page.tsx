import type { AuditAction, AuditEntry } from '../core/audit-log.js';
import { auditLabel } from './audit-labels.js';
import { When } from './when.js';

export interface AuditFilter {
  readonly queue: string | null;
  readonly actor: string | null;
  readonly action: AuditAction | null;
  readonly source: string | null;
  /** From this minute (UTC, `YYYY-MM-DDTHH:MM`). */
  readonly since: string | null;
  /** Before this minute (UTC). */
  readonly until: string | null;
}

/**
 * The tasks an entry's action touched: its one target, or the names it kept
 * (sql/0020) as a list that opens without script (`details`), saying how
 * many more it counted than it kept. An older entry kept none: blank.
 */
function AuditTasks(props: { readonly entry: AuditEntry }) {
  const { target, names, count } = props.entry;
  if (target !== null) return <>{target}</>;
  if (names.length === 0) return <></>;
  const more = count - names.length;
  return (
    <details class="audit-names">
      <summary>
        {names.length === 1 ? '1 task' : `${names.length} tasks`}
        {more > 0 ? ` of ${count}` : ''}
      </summary>
      <ul>
        {names.map((name) => (
          <li>{name}</li>
        ))}
      </ul>
      {more > 0 && <p class="hint">{`and ${more} more, not named (an entry keeps its first ${names.length})`}</p>}
    </details>
  );
}

/** The audit log: who did what to which queue, when, from where, and how many tasks it touched; newest first. */
export function AuditPage(props: {
  readonly entries: readonly AuditEntry[];
  readonly next: string | null;
  readonly filter: AuditFilter;
  readonly actions: readonly AuditAction[];
  readonly nowMs: number;
}) {
  const { filter } = props;
  return (
    <section>
      <h1>Audit log</h1>
      <form method="get" action="/console/audit" class="filter wrap" id="audit-filter">
        <label for="audit-queue">Queue starts with</label>
        <input id="audit-queue" name="queue" value={filter.queue ?? ''} placeholder="any" />
        <label for="audit-actor">Who (any part)</label>
        <input id="audit-actor" name="actor" value={filter.actor ?? ''} placeholder="anyone" />
        <label for="audit-action">Action</label>
        <select id="audit-action" name="action">
          <option value="" selected={filter.action === null}>
            any
          </option>
          {props.actions.map((action) => (
            <option value={action} selected={filter.action === action}>
              {auditLabel(action)}
            </option>
          ))}
        </select>
        <label for="audit-source">Source</label>
        <input id="audit-source" name="source" value={filter.source ?? ''} placeholder="any" />
        <label for="audit-since">From (UTC)</label>
        <input id="audit-since" name="since" type="datetime-local" value={filter.since ?? ''} />
        <label for="audit-until">Until (UTC)</label>
        <input id="audit-until" name="until" type="datetime-local" value={filter.until ?? ''} />
        <button type="submit">Filter</button>
      </form>
      <table class="audit cards" id="audit-table">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Queue</th>
            <th scope="col">Task</th>
            <th class="num" scope="col">
              Tasks
            </th>
            <th scope="col">Source</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((e) => (
            <tr data-action={e.action}>
              <td data-label="When">
                <When usec={e.atUsec} nowMs={props.nowMs} absolute />
              </td>
              <td data-label="Who">{e.actor}</td>
              <td data-label="Action">{auditLabel(e.action)}</td>
              <td data-label="Queue">
                <a href={`/console/queues/${encodeURIComponent(e.queue)}`}>{e.queue}</a>
              </td>
              <td data-label="Task">
                <AuditTasks entry={e} />
              </td>
              <td class="num" data-label="Tasks">
                {String(e.count)}
              </td>
              <td data-label="Source">{e.source}</td>
            </tr>
          ))}
          {props.entries.length === 0 && (
            <tr>
              <td colspan={7}>
                {Object.values(filter).some((v) => v !== null) ? 'No entry matches.' : 'No action recorded yet.'}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {props.next && (
        <p>
          <a href={props.next}>Older entries</a>
        </p>
      )}
    </section>
  );
}
