import type { AuditEntry } from '../core/audit-log.js';
import { formatUsec } from './format.js';

/** The audit log: who did what to which queue, when, and how many tasks it touched; newest first. */
export function AuditPage(props: { readonly entries: readonly AuditEntry[]; readonly next: string | null }) {
  return (
    <section>
      <h1>Audit log</h1>
      <table class="audit" id="audit-table">
        <thead>
          <tr>
            <th>When</th>
            <th>Who</th>
            <th>Action</th>
            <th>Queue</th>
            <th>Task</th>
            <th class="num">Tasks</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((e) => (
            <tr data-action={e.action}>
              <td>{formatUsec(e.atUsec)}</td>
              <td>{e.actor}</td>
              <td>{e.action.replace('_', ' ')}</td>
              <td>
                <a href={`/console/queues/${encodeURIComponent(e.queue)}`}>{e.queue}</a>
              </td>
              <td>{e.target ?? ''}</td>
              <td class="num">{String(e.count)}</td>
            </tr>
          ))}
          {props.entries.length === 0 && (
            <tr>
              <td colspan={6}>No action recorded yet.</td>
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
