import { sql, type Kysely } from 'kysely';
import { MIGRATIONS } from './migrations.js';
import type { Database } from './schema.js';
import { validateSchemaName } from './schema-name.js';
import { splitSql } from './split-sql.js';

export type { Migration } from './migration.js';

/** What a migration run did. */
export interface MigrateResult {
  readonly schema: string;
  readonly applied: readonly number[];
  readonly current: number;
}

/**
 * Brings the schema up to date. Runs in one transaction under an advisory
 * lock keyed by the schema name, so processes starting together apply each
 * migration once: the others wait, then find nothing left to do. The files
 * are plain SQL with unqualified names, run with search_path set to our
 * schema; nothing outside that schema is touched.
 *
 * Each file runs one statement per query (split-sql.ts): Citus fails a
 * multi-statement query string under schema-based sharding. Where the
 * citus extension is installed, the session allows the statement triggers
 * of 0004/0011 on distributed tables (citus.enable_unsafe_triggers, for this
 * transaction only); distributing the tables is an operator's step after
 * the migration (docs/scaling.md).
 */
export async function migrate(db: Kysely<Database>, schemaName: string): Promise<MigrateResult> {
  const schema = validateSchemaName(schemaName);
  const migrations = MIGRATIONS;
  // Every start and most CLI commands come here, and the schema is nearly
  // always current: one read says so, without the transaction, the lock and
  // the DDL below (six statements). A schema being migrated right now reads
  // as not current (its versions commit with it), and takes the lock.
  const done = await appliedVersions(db, schema);
  if (done !== null && migrations.every((m) => done.has(m.version)))
    return { schema, applied: [], current: Math.max(0, ...done) };
  return db.transaction().execute(async (trx) => {
    await sql`/* migrate_lock */ select pg_advisory_xact_lock(29809, hashtext(${`migrate:${schema}`}))`.execute(trx);
    await sql`/* migrate_create_schema */ create schema if not exists ${sql.id(schema)}`.execute(trx);
    await sql`/* migrate_search_path */ set local search_path to ${sql.id(schema)}`.execute(trx);
    await sql`/* migrate_citus_triggers */
      select set_config('citus.enable_unsafe_triggers', 'on', true)
       where exists (select 1 from pg_catalog.pg_extension where extname = 'citus')`.execute(trx);
    await sql`/* migrate_create_table */
      create table if not exists schema_migrations (
        version    integer primary key,
        name       text not null,
        applied_at timestamptz not null default now()
      )`.execute(trx);
    const done = new Set(
      (
        await sql<{ version: number }>`/* migrate_applied */ select version from schema_migrations`.execute(trx)
      ).rows.map((r) => r.version),
    );
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      for (const statement of splitSql(migration.text)) await sql.raw(statement).execute(trx);
      await sql`/* migrate_record */ insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})`.execute(
        trx,
      );
      applied.push(migration.version);
    }
    const current = Math.max(0, ...done, ...applied);
    return { schema, applied, current };
  });
}

/** The versions applied to a schema; null when it has no migrations table yet (or no schema). */
async function appliedVersions(db: Kysely<Database>, schema: string): Promise<Set<number> | null> {
  try {
    const result = await sql<{
      version: number;
    }>`/* migrate_check */ select version from ${sql.id(schema, 'schema_migrations')}`.execute(db);
    return new Set(result.rows.map((r) => r.version));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // undefined_table, invalid_schema_name: a new schema, which the transaction makes.
    if (code === '42P01' || code === '3F000') return null;
    throw error;
  }
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
