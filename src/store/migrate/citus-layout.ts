/**
 * Where each table of the schema lives on Citus (docs/scaling.md, "Past one
 * server"): the one list a new table must join. `distributed` tables are
 * split by queue_id and co-located with tasks, so one queue's rows, counters
 * and tombstones live together on one worker and every statement keyed by a
 * queue is routed there; `reference` tables are small, shared and read by
 * the statements (and triggers) that run on the workers, so every node holds
 * a copy; `coordinator` tables only the service reads, and they stay where
 * the migration made them.
 *
 * A table missing here is still placed (a queue_id column makes it
 * distributed, otherwise it stays on the coordinator), and
 * test/store/citus-layout.test.ts fails until it is listed.
 */
export const CITUS_LAYOUT = {
  tasks: 'distributed',
  task_tombstones: 'distributed',
  queue_storage: 'distributed',
  lease_history: 'distributed',
  lease_rate_windows: 'distributed',
  queue_waiters: 'distributed',
  task_dead_letters: 'distributed',
  task_attempts: 'distributed',
  dead_letter_counts: 'distributed',
  push_queue_state: 'distributed',
  queues: 'reference',
  service_settings: 'reference',
  push_dispatchers: 'reference',
  audit_log: 'coordinator',
  auth_signing_keys: 'coordinator',
  cron_jobs: 'coordinator',
  queue_definitions: 'coordinator',
  queue_depth_samples: 'coordinator',
  schema_migrations: 'coordinator',
  schema_routines: 'coordinator',
} as const satisfies Record<string, CitusPlacement>;

export type CitusPlacement = 'distributed' | 'reference' | 'coordinator';

/** The table every distributed table is co-located with. */
export const COLOCATION_TABLE = 'tasks';

/** A table's placement: the list's, else by whether it has a queue_id column. */
export function citusPlacement(table: string, hasQueueId: boolean): CitusPlacement {
  const listed = (CITUS_LAYOUT as Record<string, CitusPlacement>)[table];
  if (listed !== undefined) return listed;
  return hasQueueId ? 'distributed' : 'coordinator';
}
