import type { ColumnType, Generated, GeneratedAlways } from 'kysely';

/**
 * Kysely's view of the tables in `sql/`. The migrations are the source of
 * truth; this file follows them by hand (test/store/migrate.test.ts compares
 * the two, column by column).
 */
export interface QueuesTable {
  id: GeneratedAlways<number>;
  name: string;
  mode: 'pull' | 'push';
  max_leases: number | null;
  storage_limit_bytes: ColumnType<string | null, number | null, number | null>;
  lease_rate_calls: number | null;
  lease_rate_seconds: number | null;
  active: Generated<boolean>;
  updated_at: Generated<Date>;
  paused: Generated<boolean>;
  paused_at: Date | null;
  /** sql/0012: a push queue's delivery settings (JSON text on write). */
  push_settings: unknown;
  /** sql/0018: the queue's whole definition as its owner wrote it (JSON text on write); null before. */
  definition: unknown;
  /** sql/0021: who defines the queue: its file, or the Cloud Tasks API. */
  source: Generated<'file' | 'api'>;
  /** sql/0021: when an API-made queue was deleted (its name held); null otherwise. */
  deleted_at: Date | null;
}

/** sql/0018: each write of the queue definitions; the newest revision is the truth. */
export interface QueueDefinitionsTable {
  revision: GeneratedAlways<string>;
  fingerprint: string;
  source: string;
  admin_emails: Generated<string[]>;
  written_at: Generated<Date>;
}

export interface ServiceSettingsTable {
  name: string;
  value: ColumnType<string | null, number | null, number | null>;
}

export interface TasksTable {
  queue_id: number;
  name: string;
  eta: Date;
  retry_count: Generated<number>;
  tag: string | null;
  payload: Uint8Array;
  enqueued_at: Generated<Date>;
  size_bytes: GeneratedAlways<number>;
  /** sql/0012: push tasks. */
  push: unknown;
  execution_count: Generated<number>;
  first_try_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  dispatched_at: Date | null;
  /** sql/0012: the push_dispatchers row of the process whose claim this is. */
  claimed_by: string | null;
}

export interface TaskTombstonesTable {
  queue_id: number;
  name: string;
  deleted_at: Generated<Date>;
  reason: 'deleted' | 'retry_limit' | 'purged';
  retry_count: Generated<number>;
}

export interface QueueStorageTable {
  queue_id: number;
  shard: number;
  task_count: ColumnType<string, number, number>;
  byte_count: ColumnType<string, number, number>;
}

/** sql/0014: dead letters per queue, in counter rows sharded like queue_storage. */
export interface DeadLetterCountsTable {
  queue_id: number;
  shard: number;
  dead_letters: ColumnType<string, number, number>;
}

export interface LeaseHistoryTable {
  queue_id: number;
  leased_at: Generated<Date>;
  task_count: number;
}

export interface LeaseRateWindowsTable {
  queue_id: number;
  window_start: ColumnType<string, number, number>;
  calls: number;
}

export interface QueueWaitersTable {
  queue_id: number;
  until: Date;
}

export interface TaskDeadLettersTable {
  queue_id: number;
  name: string;
  tag: string | null;
  payload: Uint8Array;
  retry_count: number;
  enqueued_at: Date;
  died_at: Generated<Date>;
  push: unknown;
  last_status: number | null;
  last_error: string | null;
}

/** The last attempts of a task or dead letter that did not succeed (sql/0019). */
export interface TaskAttemptsTable {
  queue_id: number;
  task_name: string;
  attempt: number;
  ended_at: Generated<Date>;
  outcome: string;
  http_status: number | null;
  error: string | null;
  response_excerpt: string | null;
  duration_ms: number | null;
}

/** A push queue's token bucket (sql/0012). */
export interface PushQueueStateTable {
  queue_id: number;
  tokens: number;
  refilled_at: Date;
  slow_until: Date | null;
  hold_until: Date | null;
}

/** A process dispatching push tasks, alive until expires_at (sql/0012). */
export interface PushDispatchersTable {
  id: GeneratedAlways<string>;
  label: string | null;
  started_at: Generated<Date>;
  heartbeat_at: Generated<Date>;
  expires_at: Date;
}

/** The operators' views of sql/0009 (read-only). */
export interface QueueStatsView {
  queue_id: number;
  queue: string;
  mode: 'pull' | 'push';
  active: boolean;
  paused: boolean;
  paused_at: Date | null;
  total_tasks: string;
  available_tasks: string;
  leased_tasks: string;
  delayed_tasks: string;
  oldest_available_since: Date | null;
  oldest_available_age_seconds: number | null;
  leased_last_minute: string;
  leased_last_hour: string;
  dead_letters: string;
  storage_bytes: string;
  storage_limit_bytes: string | null;
  retry_limit: number | null;
  lease_rate_calls: number | null;
  lease_rate_seconds: number | null;
  long_leases: string;
}

export interface LeasedTasksView {
  queue: string;
  task_name: string;
  tag: string | null;
  lease_count: number;
  lease_expires_at: Date;
  lease_remaining: unknown;
  enqueued_at: Date;
  payload_bytes: number;
}

export interface RecentTombstonesView {
  queue: string;
  task_name: string;
  reason: 'deleted' | 'retry_limit' | 'purged';
  deleted_at: Date;
  deleted_ago: unknown;
  retry_count: number;
}

export interface DeadLettersView {
  queue: string;
  task_name: string;
  tag: string | null;
  retry_count: number;
  enqueued_at: Date;
  died_at: Date;
  payload_bytes: number;
  payload: Uint8Array;
}

export interface AuditLogTable {
  id: GeneratedAlways<string>;
  at: Generated<Date>;
  actor: string;
  action: string;
  queue: string;
  target: string | null;
  count: Generated<number>;
  /** sql/0020: the first 1,000 names of the tasks the action touched. */
  task_names: string[] | null;
  source: Generated<string>;
}

export interface QueueDepthSamplesTable {
  queue: string;
  at: Date;
  available: number;
  leased: number;
  delayed: number;
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: Generated<Date>;
  /** sha256 (hex) of the migration's file; NULL until migrate records it on a row older code wrote. */
  checksum: string | null;
}

/** The routines of sql/routines/ applied to the schema, each with the digest of the text applied (migrate.ts). */
export interface SchemaRoutinesTable {
  name: string;
  digest: string;
  applied_at: Generated<Date>;
}

export interface Database {
  queues: QueuesTable;
  service_settings: ServiceSettingsTable;
  queue_definitions: QueueDefinitionsTable;
  tasks: TasksTable;
  task_tombstones: TaskTombstonesTable;
  queue_storage: QueueStorageTable;
  lease_history: LeaseHistoryTable;
  lease_rate_windows: LeaseRateWindowsTable;
  queue_waiters: QueueWaitersTable;
  task_dead_letters: TaskDeadLettersTable;
  task_attempts: TaskAttemptsTable;
  dead_letter_counts: DeadLetterCountsTable;
  push_queue_state: PushQueueStateTable;
  push_dispatchers: PushDispatchersTable;
  queue_stats: QueueStatsView;
  leased_tasks: LeasedTasksView;
  recent_tombstones: RecentTombstonesView;
  dead_letters: DeadLettersView;
  schema_migrations: SchemaMigrationsTable;
  schema_routines: SchemaRoutinesTable;
  audit_log: AuditLogTable;
  queue_depth_samples: QueueDepthSamplesTable;
  auth_signing_keys: AuthSigningKeysTable;
  cron_jobs: CronJobsTable;
}

/** sql/0017_cron_jobs_state.sql: the cron jobs the servers run and each one's last firing. */
export interface CronJobsTable {
  name: string;
  schedule: string;
  timezone: string;
  url: string;
  queue: string;
  description: string | null;
  target: string | null;
  retry: ColumnType<Record<string, unknown>, string, string>;
  last_instant: Date | null;
  last_fired_at: Date | null;
  last_task: string | null;
  last_outcome: 'added' | 'skipped' | 'failed' | null;
  last_error: string | null;
  anchored_at: Generated<Date>;
  synced_at: Generated<Date>;
  /** sql/0017: when a server started whose cron file does not name the job. */
  retired_at: Date | null;
  /** sql/0017: when a server running the job last said so. */
  seen_at: Generated<Date>;
}

/** sql/0006_auth.sql: the local token issuer's signing keys. */
export interface AuthSigningKeysTable {
  kid: string;
  algorithm: 'ES256';
  public_jwk: ColumnType<Record<string, unknown>, string, string>;
  private_jwk: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  max_token_seconds: number;
  created_at: Generated<Date>;
  retired_at: Date | null;
  verify_until: Date | null;
}
