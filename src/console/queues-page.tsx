import type { QueueOverview } from '../core/queue-overview.js';
import { QueuesTable } from './queues-table.js';

/** The start page: every queue the viewer may read, refreshing itself. */
export function QueuesPage(props: { readonly queues: readonly QueueOverview[]; readonly refreshSeconds: number }) {
  return (
    <section>
      <h1>Queues</h1>
      <p class="hint">Figures refresh every few seconds. Open a queue for its tasks, charts and dead letters.</p>
      <QueuesTable queues={props.queues} refreshSeconds={props.refreshSeconds} />
    </section>
  );
}
