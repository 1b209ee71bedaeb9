import type { QueueOverview } from '../core/queue-overview.js';
import { QueuesTable } from './queues-table.js';

/** The start page: every queue the viewer may read, problem queues first, refreshing itself. */
export function QueuesPage(props: { readonly queues: readonly QueueOverview[]; readonly filter: string }) {
  return (
    <section>
      <h1>Queues</h1>
      <form method="get" action="/console" class="filter" role="search">
        <label for="queue-filter">Name contains</label>
        <input
          id="queue-filter"
          type="search"
          name="q"
          value={props.filter}
          autocomplete="off"
          data-filter-table="queues-table"
        />
        <button type="submit">Filter</button>
      </form>
      <QueuesTable queues={props.queues} filter={props.filter} />
    </section>
  );
}
