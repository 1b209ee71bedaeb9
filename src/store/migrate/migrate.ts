import { sql, type Kysely, type Transaction } from 'kysely';
import { migrationFile, type AppliedMigration } from './applied-migration.js';
import { applyRoutines } from './apply-routines.js';
import { citusRolesOnWorkers, isCitus, setUpCitus } from './citus-setup.js';
import type { Migration } from './migration.js';
import { editedMigration, uncheckedMigrations } from './migration-checksums.js';
import { MIGRATIONS, ROUTINES } from './migrations.js';
import type { Routine } from './routine.js';
import type { Database } from '../schema.js';
import { validateSchemaName } from './schema-name.js';
import { splitSql } from './split-sql.js';
import { sqlDigest } from './sql-digest.js';
import { isUnreleasedHistory, ROLES_MIGRATION, SQUASHED_VERSIONS, UNRELEASED_SQUASHED } from './unreleased-history.js';

export type { Migration } from './migration.js';
export type { Routine } from './routine.js';

/** What a migration run did. */
export interface MigrateResult {
  readonly schema: string;
  readonly applied: readonly number[];
  readonly current: number;
  /** The routines (sql/routines/) applied because their text changed, or after a migration. */
  readonly routines: readonly string[];
}

/** The SQL a schema is brought to: this package's (sql/, embedded in migrations.ts), or a test's. */
export interface SchemaSource {
  readonly migrations: readonly Migration[];
  readonly routines: readonly Routine[];
}

const SHIPPED: SchemaSource = { migrations: MIGRATIONS, routines: ROUTINES };

/**
 * Brings the schema up to date. Runs in one transaction under an advisory
 * lock keyed by the schema name, so processes starting together apply each
 * migration and routine once: the others wait, then find nothing left to
 * do. The files are plain SQL with unqualified names, run with search_path
 * set to our schema; nothing outside that schema is touched but the SQL
 * API's roles (sql/0016), which belong to the cluster.
 *
 * The numbered migrations (sql/NNNN_*.sql) run once each, in order, and
 * never change once applied: schema_migrations records each one's checksum,
 * and a file that no longer matches fails migrate (and so the start), naming
 * it. Then the routines (sql/routines/*.sql: functions, views, their
 * triggers and grants) whose text changed since schema_routines recorded
 * it are applied again, all of them after a migration ran.
 *
 * Each file runs one statement per query (split-sql.ts): Citus fails a
 * multi-statement query string under schema-based sharding. Where the
 * citus extension is installed, the session allows the statement triggers
 * of 0004/0011 on distributed tables (citus.enable_unsafe_triggers, for this
 * transaction only), and after the migration citus-setup.ts distributes the
 * tables, makes the reference tables and creates the functions on the
 * workers (docs/scaling.md).
 */
export async function migrate(
  db: Kysely<Database>,
  schemaName: string,
  source: SchemaSource = SHIPPED,
): Promise<MigrateResult> {
  const schema = validateSchemaName(schemaName);
  // Every start and most CLI commands come here, and the schema is nearly
  // always current: one read says so, without the transaction, the lock and
  // the DDL below. A schema being migrated right now reads as not current
  // (its rows commit with it), and takes the lock.
  const state = await recordedState(db, schema);
  if (state !== null && isCurrent(schema, source, state)) {
    if (state.citus) await setUpCitus(db, schema);
    return { schema, applied: [], current: Math.max(0, ...state.applied.map((m) => m.version)), routines: [] };
  }
  const citus = await isCitus(db);
  if (citus) await citusRolesOnWorkers(db, schema);
  const result = await migrateInTransaction(db, schema, source);
  if (citus) await setUpCitus(db, schema);
  return result;
}

/** The migrations and routines not applied yet, in one transaction under the schema's lock. */
async function migrateInTransaction(
  db: Kysely<Database>,
  schema: string,
  source: SchemaSource,
): Promise<MigrateResult> {
  return db.transaction().execute(async (trx) => {
    await sql`/* migrate_lock */ select pg_advisory_xact_lock(29809, hashtext(${`migrate:${schema}`}))`.execute(trx);
    await sql`/* migrate_create_schema */ create schema if not exists ${sql.id(schema)}`.execute(trx);
    await sql`/* migrate_search_path */ set local search_path to ${sql.id(schema)}`.execute(trx);
    // On Citus, DDL on distributed tables runs over one connection per
    // worker, so a later statement of the same transaction sees it.
    await sql`/* migrate_citus_triggers */
      select set_config('citus.enable_unsafe_triggers', 'on', true),
             set_config('citus.multi_shard_modify_mode', 'sequential', true)
       where exists (select 1 from pg_catalog.pg_extension where extname = 'citus')`.execute(trx);
    await createBookkeeping(trx);
    let done = await appliedMigrations(trx);
    // A development build's 0012-0029, squashed into this version's: the
    // same schema, other bookkeeping.
    const bridged = isUnreleasedHistory(schema, done);
    if (bridged) done = await bridgeUnreleased(trx, source.migrations);
    for (const migration of uncheckedMigrations(schema, source.migrations, done)) {
      await sql`/* migrate_record_checksum */
        update schema_migrations set checksum = ${sqlDigest(migration.text)} where version = ${migration.version}`.execute(
        trx,
      );
    }
    const versions = new Set(done.map((m) => m.version));
    const applied: number[] = [];
    for (const migration of source.migrations) {
      if (versions.has(migration.version)) continue;
      for (const statement of splitSql(migration.text)) await sql.raw(statement).execute(trx);
      await sql`/* migrate_record */
        insert into schema_migrations (version, name, checksum)
        values (${migration.version}, ${migration.name}, ${sqlDigest(migration.text)})`.execute(trx);
      applied.push(migration.version);
    }
    // A schema a newer version migrated further keeps that version's routines.
    const routines = isNewer(source, done)
      ? []
      : await applyRoutines(trx, source.routines, bridged || applied.length > 0);
    const current = Math.max(0, ...done.map((m) => m.version), ...applied);
    return { schema, applied, current, routines };
  });
}

/** What the fast path reads: the applied migrations and the routines' recorded digests. */
interface RecordedState {
  readonly applied: readonly AppliedMigration[];
  readonly routines: ReadonlyMap<string, string>;
  /** Whether the database has the citus extension (citus-setup.ts runs after every migrate there). */
  readonly citus: boolean;
}

/**
 * The schema's bookkeeping in one read; null when it has no bookkeeping of
 * this version yet (no schema, no migrations table, no checksum column or
 * no routines table), which the transaction makes.
 */
async function recordedState(db: Kysely<Database>, schema: string): Promise<RecordedState | null> {
  try {
    const result = await sql<{ version: number | null; name: string; digest: string | null }>`/* migrate_check */
      select version, name, checksum as digest from ${sql.id(schema, 'schema_migrations')}
      union all
      select null, name, digest from ${sql.id(schema, 'schema_routines')}
      union all
      select -1, 'citus', null from pg_catalog.pg_extension where extname = 'citus'`.execute(db);
    const applied: AppliedMigration[] = [];
    const routines = new Map<string, string>();
    let citus = false;
    for (const row of result.rows) {
      if (row.version !== null && Number(row.version) === -1) citus = true;
      else if (row.version === null) routines.set(row.name, row.digest ?? '');
      else applied.push({ version: Number(row.version), name: row.name, checksum: row.digest });
    }
    return { applied, routines, citus };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // undefined_table, invalid_schema_name, undefined_column.
    if (code === '42P01' || code === '3F000' || code === '42703') return null;
    throw error;
  }
}

/**
 * Whether the schema needs nothing: every migration applied with its
 * checksum, every routine's digest recorded as it is. An applied migration
 * whose file changed fails here too, so a start never goes past it.
 */
function isCurrent(schema: string, source: SchemaSource, state: RecordedState): boolean {
  const byVersion = new Map(state.applied.map((m) => [m.version, m]));
  for (const migration of source.migrations) {
    const row = byVersion.get(migration.version);
    if (row === undefined || row.name !== migration.name || row.checksum === null) return false;
    if (row.checksum !== sqlDigest(migration.text)) throw editedMigration(schema, migrationFile(migration));
  }
  if (isNewer(source, state.applied)) return true;
  if (state.routines.size !== source.routines.length) return false;
  return source.routines.every((r) => state.routines.get(r.name) === sqlDigest(r.text));
}

/** Whether the schema holds a migration this version does not ship: a newer version migrated it. */
function isNewer(source: SchemaSource, applied: readonly AppliedMigration[]): boolean {
  const latest = Math.max(0, ...source.migrations.map((m) => m.version));
  return applied.some((m) => m.version > latest);
}

/** The bookkeeping tables, and the checksum column older versions' schema_migrations lacks. */
async function createBookkeeping(trx: Transaction<Database>): Promise<void> {
  await sql`/* migrate_create_table */
    create table if not exists schema_migrations (
      version    integer primary key,
      name       text not null,
      applied_at timestamptz not null default now()
    )`.execute(trx);
  await sql`/* migrate_add_checksum */ alter table schema_migrations add column if not exists checksum text`.execute(
    trx,
  );
  await sql`/* migrate_create_routines */
    create table if not exists schema_routines (
      name       text primary key,
      digest     text not null,
      applied_at timestamptz not null default now()
    )`.execute(trx);
}

/** The schema's applied migrations (inside the transaction). */
async function appliedMigrations(trx: Transaction<Database>): Promise<AppliedMigration[]> {
  const result = await sql<{ version: number; name: string; checksum: string | null }>`/* migrate_applied */
    select version, name, checksum from schema_migrations order by version`.execute(trx);
  return result.rows.map((r) => ({ version: Number(r.version), name: r.name, checksum: r.checksum }));
}

/**
 * Replaces a development build's rows 0012-0029 by the squashed
 * migrations' (0012-0018), with their checksums: the schema is already
 * theirs. The roles migration runs again (ROLES_MIGRATION); the routines
 * are then applied, all of them (their digests were never recorded).
 */
async function bridgeUnreleased(
  trx: Transaction<Database>,
  migrations: readonly Migration[],
): Promise<AppliedMigration[]> {
  const old = UNRELEASED_SQUASHED.map(([version]) => version);
  await sql`/* migrate_bridge_forget */ delete from schema_migrations where version = any(${old}::int4[])`.execute(trx);
  for (const migration of migrations.filter((m) => SQUASHED_VERSIONS.includes(m.version))) {
    await sql`/* migrate_bridge_record */
      insert into schema_migrations (version, name, checksum)
      values (${migration.version}, ${migration.name}, ${sqlDigest(migration.text)})`.execute(trx);
    if (migration.name === ROLES_MIGRATION)
      for (const statement of splitSql(migration.text)) await sql.raw(statement).execute(trx);
  }
  return appliedMigrations(trx);
}

/**
 * The highest migration applied to a schema, for readiness checks. A schema
 * without the migrations table fails like a missing table (42P01).
 */
export async function schemaVersion(db: Kysely<Database>, schemaName: string): Promise<number> {
  const schema = validateSchemaName(schemaName);
  const result = await sql<{
    version: number | null;
  }>`/* schema_version */ select max(version) as version from ${sql.id(schema, 'schema_migrations')}`.execute(db);
  return Number(result.rows[0]?.version ?? 0);
}

/** Whether the schema holds the service's tables (its migrations table), without failing when it does not. */
export async function schemaExists(db: Kysely<Database>, schemaName: string): Promise<boolean> {
  const schema = validateSchemaName(schemaName);
  const result = await sql<{ found: boolean }>`/* schema_exists */
    select exists (select 1 from pg_catalog.pg_tables where schemaname = ${schema} and tablename = 'schema_migrations') as found`.execute(
    db,
  );
  return result.rows[0]?.found === true;
}

/** The highest migration this package ships. */
export async function latestMigration(): Promise<number> {
  return Math.max(0, ...MIGRATIONS.map((m) => m.version));
}
