import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/engine/database.js';
import { migrate } from '../../src/store/migrate/migrate.js';
import { MIGRATIONS } from '../../src/store/migrate/migrations.js';
import type { Database } from '../../src/store/schema.js';
import { freshSchema, testPgUrl } from '../helpers/engines.js';

/**
 * The columns of every table, as the Kysely types in src/store/schema.ts
 * declare them. The type below fails to compile when a table or column is
 * missing from this list or unknown to the types; the test fails when the
 * migrations create something else.
 */
const COLUMNS = {
  queues: [
    'id',
    'name',
    'mode',
    'max_leases',
    'storage_limit_bytes',
    'lease_rate_calls',
    'lease_rate_seconds',
    'active',
    'updated_at',
    'paused',
    'paused_at',
    'push_settings',
    'definition',
    'source',
    'deleted_at',
  ],
  service_settings: ['name', 'value'],
  queue_definitions: ['revision', 'fingerprint', 'source', 'admin_emails', 'written_at'],
  tasks: [
    'queue_id',
    'name',
    'eta',
    'retry_count',
    'tag',
    'payload',
    'enqueued_at',
    'last_error',
    'push',
    'execution_count',
    'first_try_at',
    'last_status',
    'dispatched_at',
    // Added again by 0012 (push requests count in a task's size).
    'size_bytes',
    // 0012: the process whose push claim this is.
    'claimed_by',
  ],
  task_tombstones: ['queue_id', 'name', 'deleted_at', 'reason', 'retry_count'],
  queue_storage: ['queue_id', 'shard', 'task_count', 'byte_count'],
  lease_history: ['queue_id', 'leased_at', 'task_count'],
  lease_rate_windows: ['queue_id', 'window_start', 'calls'],
  queue_waiters: ['queue_id', 'until'],
  task_dead_letters: [
    'queue_id',
    'name',
    'tag',
    'payload',
    'retry_count',
    'enqueued_at',
    'died_at',
    'last_error',
    'push',
    'last_status',
  ],
  dead_letter_counts: ['queue_id', 'shard', 'dead_letters'],
  task_attempts: [
    'queue_id',
    'task_name',
    'attempt',
    'ended_at',
    'outcome',
    'http_status',
    'error',
    'response_excerpt',
    'duration_ms',
  ],
  push_queue_state: ['queue_id', 'tokens', 'refilled_at', 'slow_until', 'hold_until'],
  push_dispatchers: ['id', 'label', 'started_at', 'heartbeat_at', 'expires_at'],
  queue_stats: [
    'queue_id',
    'queue',
    'mode',
    'active',
    'paused',
    'paused_at',
    'total_tasks',
    'available_tasks',
    'leased_tasks',
    'delayed_tasks',
    'oldest_available_since',
    'oldest_available_age_seconds',
    'leased_last_minute',
    'leased_last_hour',
    'dead_letters',
    'storage_bytes',
    'storage_limit_bytes',
    'retry_limit',
    'lease_rate_calls',
    'lease_rate_seconds',
    'long_leases',
  ],
  leased_tasks: [
    'queue',
    'task_name',
    'tag',
    'lease_count',
    'lease_expires_at',
    'lease_remaining',
    'enqueued_at',
    'payload_bytes',
  ],
  recent_tombstones: ['queue', 'task_name', 'reason', 'deleted_at', 'deleted_ago', 'retry_count'],
  dead_letters: ['queue', 'task_name', 'tag', 'retry_count', 'enqueued_at', 'died_at', 'payload_bytes', 'payload'],
  schema_migrations: ['version', 'name', 'applied_at', 'checksum'],
  schema_routines: ['name', 'digest', 'applied_at'],
  audit_log: ['id', 'at', 'actor', 'action', 'queue', 'target', 'count', 'source', 'task_names'],
  queue_depth_samples: ['queue', 'at', 'available', 'leased', 'delayed'],
  auth_signing_keys: [
    'kid',
    'algorithm',
    'public_jwk',
    'private_jwk',
    'max_token_seconds',
    'created_at',
    'retired_at',
    'verify_until',
  ],
  cron_jobs: [
    'name',
    'schedule',
    'timezone',
    'url',
    'queue',
    'description',
    'target',
    'retry',
    'last_instant',
    'last_fired_at',
    'last_task',
    'last_outcome',
    'last_error',
    'anchored_at',
    'synced_at',
    'retired_at',
    'seen_at',
  ],
} as const satisfies { [T in keyof Database]: readonly (keyof Database[T])[] };

type Exhaustive = { [T in keyof Database]: Exclude<keyof Database[T], (typeof COLUMNS)[T][number]> }[keyof Database];
const exhaustive: [Exhaustive] extends [never] ? true : false = true;

describe('migrations (postgres)', () => {
  const schemas: string[] = [];
  const admin = () => new pg.Pool({ connectionString: testPgUrl(), max: 2 });
  afterEach(async () => {
    const pool = admin();
    for (const schema of schemas.splice(0)) await pool.query(`drop schema if exists ${schema} cascade`);
    await pool.end();
  });

  it('creates exactly the tables and columns the types declare, in its own schema only', async () => {
    expect(exhaustive).toBe(true);
    const schema = freshSchema();
    schemas.push(schema);
    const database = await openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize: 2 });
    const pool = admin();
    try {
      const before = await pool.query<{ n: string }>(
        `select count(*)::text as n from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema') and table_schema not like 't\\_%' and table_schema not like 'bench\\_%' and table_schema not like 'raw\\_%'`,
      );
      const result = await migrate(database.db, schema);
      expect(result.applied).toEqual(MIGRATIONS.map((m) => m.version));
      const { rows } = await pool.query<{ table_name: string; column_name: string }>(
        `select table_name, column_name from information_schema.columns where table_schema = $1 order by table_name, ordinal_position`,
        [schema],
      );
      const actual: Record<string, string[]> = {};
      for (const row of rows) (actual[row.table_name] ??= []).push(row.column_name);
      const expected = Object.fromEntries(Object.entries(COLUMNS).map(([t, cols]) => [t, [...cols]]));
      expect(actual).toEqual(expected);
      const after = await pool.query<{ n: string }>(
        `select count(*)::text as n from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema') and table_schema not like 't\\_%' and table_schema not like 'bench\\_%' and table_schema not like 'raw\\_%'`,
      );
      expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
      // Running again applies nothing.
      expect((await migrate(database.db, schema)).applied).toEqual([]);
    } finally {
      await pool.end();
      await database.close();
    }
  });

  it('applies each migration once when several processes start together', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    const databases = await Promise.all(
      Array.from({ length: 4 }, () => openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize: 2 })),
    );
    try {
      const results = await Promise.all(databases.map((d) => migrate(d.db, schema)));
      const applied = results.flatMap((r) => r.applied);
      expect(applied.sort()).toEqual(MIGRATIONS.map((m) => m.version).sort());
      expect(new Set(results.map((r) => r.current)).size).toBe(1);
    } finally {
      await Promise.all(databases.map((d) => d.close()));
    }
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    const database = await openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize: 1 });
    try {
      await expect(migrate(database.db, 'public; drop table x')).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    } finally {
      await database.close();
    }
  });
});
