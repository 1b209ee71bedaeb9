import { QueueError } from '../../core/errors.js';
import { migrationFile, type AppliedMigration } from './applied-migration.js';

/**
 * The migrations 0012-0029 as development builds after 0.2.0 applied them,
 * before they were squashed into 0012-0018 (never released: 0.2.0 shipped
 * 0001-0011). A database made by such a build has these rows in
 * schema_migrations and, at 0029, exactly the schema 0012-0018 and the
 * routines make (the squash was checked by comparing pg_dump --schema-only
 * of both), so migrate() only rewrites its bookkeeping (bridgeUnreleased).
 */
export const UNRELEASED_SQUASHED: readonly (readonly [number, string])[] = [
  [12, 'task_last_error'],
  [13, 'push_queues'],
  [14, 'queue_depth_samples'],
  [15, 'sql_api'],
  [16, 'dead_letter_counts'],
  [17, 'sql_api_citus_shapes'],
  [18, 'cron_jobs'],
  [19, 'push_claim_after_delivery'],
  [20, 'sql_api_generated_statements'],
  [21, 'sql_api_push_task'],
  [22, 'sql_api_add_tasks_set_based'],
  [23, 'one_add_statement'],
  [24, 'cron_jobs_retired'],
  [25, 'task_names_one_random_key'],
  [26, 'push_dispatcher_liveness'],
  [27, 'push_request_bounds'],
  [28, 'cron_firings_reserved'],
  [29, 'queue_definitions'],
];

/**
 * Whether a schema's history is that of a development build at 0029 (true:
 * its rows 0012-0029 are to be replaced by the squashed migrations'), or
 * holds none of those rows (false). A history with some of them but not all
 * is refused: its schema is one no squashed migration reproduces.
 */
export function isUnreleasedHistory(schema: string, applied: readonly AppliedMigration[]): boolean {
  const found = applied.filter((row) => UNRELEASED_SQUASHED.some(([v, n]) => v === row.version && n === row.name));
  if (found.length === 0) return false;
  if (found.length === UNRELEASED_SQUASHED.length) return true;
  const missing = UNRELEASED_SQUASHED.filter(([v, n]) => !found.some((row) => row.version === v && row.name === n));
  throw new QueueError(
    'INVALID_CONFIG',
    `schema "${schema}" was migrated by an unreleased development build to an intermediate state: it holds ` +
      `${found.map(migrationFile).join(', ')} but not ${missing.map(([version, name]) => migrationFile({ version, name })).join(', ')}. ` +
      'Those migrations were squashed before release and this version cannot continue from there: migrate the schema ' +
      'with the build that made it (to its 0029_queue_definitions) first, or start from a released version (0.2.0 or earlier).',
    { field: 'schema_migrations' },
  );
}

/** The numbers of the migrations 0012-0029 were squashed into: a bridged schema records these as applied. */
export const SQUASHED_VERSIONS: readonly number[] = [12, 13, 14, 15, 16, 17, 18];

/**
 * The squashed migration that is run again on a bridged schema: the SQL
 * API's roles (idempotent). Roles belong to the cluster, and a schema
 * restored into another one may have lost them; a fresh schema has them.
 */
export const ROLES_MIGRATION = 'sql_api_roles';
