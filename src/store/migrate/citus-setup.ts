import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { citusPlacement, COLOCATION_TABLE, type CitusPlacement } from './citus-layout.js';

/** What setting up the schema on Citus did (empty lists: it was already set up). */
export interface CitusSetupResult {
  readonly distributed: readonly string[];
  readonly reference: readonly string[];
  /** Functions created on the workers (create_distributed_function). */
  readonly functions: readonly string[];
  /** Functions whose pinned generic plans were dropped. */
  readonly unpinned: readonly string[];
}

/** Whether the connected database has the citus extension: then migrate sets the schema up on it. */
export async function isCitus(db: Kysely<Database>): Promise<boolean> {
  const result = await sql<{ found: boolean }>`/* citus_present */
    select exists (select 1 from pg_catalog.pg_extension where extname = 'citus') as found`.execute(db);
  return result.rows[0]?.found === true;
}

/**
 * The SQL API's roles (sql/0016) on every worker, where the coordinator has
 * them: Citus propagates a role it sees created, not one made before (by
 * another schema's migration, or by hand), and the migration's GRANTs are
 * propagated to workers that must know the role. Runs before the migration.
 */
export async function citusRolesOnWorkers(db: Kysely<Database>, schema: string): Promise<void> {
  const roles = [`${schema}_producer`, `${schema}_consumer`];
  await sql`/* citus_roles_on_workers */
    select run_command_on_workers(format(
             'DO $r$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %L) THEN CREATE ROLE %I NOLOGIN; END IF; END $r$',
             r.rolname, r.rolname))
      from pg_catalog.pg_roles r
     where r.rolname = any(${roles}::text[])`.execute(db);
}

/**
 * Places the schema's tables on the Citus cluster (citus-layout.ts), creates
 * its functions on the workers, and drops the generic plans the SQL API's
 * functions pin (Citus cannot plan most of their statements generically).
 * Idempotent: what is in place is left alone, so every migrate runs it and
 * a table or routine a migration added is placed the next time. The triggers
 * on distributed tables need citus.enable_unsafe_triggers, set here for the
 * session and for the database (new sessions' DDL on them).
 */
export async function setUpCitus(db: Kysely<Database>, schema: string): Promise<CitusSetupResult> {
  return db.connection().execute(async (conn) => {
    await sql`/* citus_unsafe_triggers */ select set_config('citus.enable_unsafe_triggers', 'on', false)`.execute(conn);
    const tables = await sql<{ name: string; has_queue_id: boolean; placed: boolean }>`/* citus_tables */
      select c.relname as name,
             exists (select 1 from pg_catalog.pg_attribute a
                      where a.attrelid = c.oid and a.attname = 'queue_id' and not a.attisdropped) as has_queue_id,
             exists (select 1 from pg_dist_partition p where p.logicalrelid = c.oid) as placed
        from pg_catalog.pg_class c
       where c.relnamespace = ${schema}::regnamespace and c.relkind in ('r', 'p')
       order by c.relname`.execute(conn);
    const todo = (placement: CitusPlacement) =>
      tables.rows.filter((t) => !t.placed && citusPlacement(t.name, t.has_queue_id) === placement).map((t) => t.name);
    const reference = todo('reference');
    for (const name of reference)
      await sql`/* citus_reference_table */ select create_reference_table(${qualified(schema, name)}::regclass)`.execute(
        conn,
      );
    // tasks first: the others are co-located with it.
    const distributed = todo('distributed').sort(
      (a, b) => Number(b === COLOCATION_TABLE) - Number(a === COLOCATION_TABLE),
    );
    for (const name of distributed) {
      const colocate = name === COLOCATION_TABLE ? 'default' : qualified(schema, COLOCATION_TABLE);
      await sql`/* citus_distributed_table */
        select create_distributed_table(${qualified(schema, name)}::regclass, 'queue_id', colocate_with => ${colocate})`.execute(
        conn,
      );
    }
    const pinned = await sql<{ fn: string }>`/* citus_pinned_plans */
      select ${FUNCTION_NAME} as fn from pg_catalog.pg_proc p
       where p.pronamespace = ${schema}::regnamespace
         and 'plan_cache_mode=force_generic_plan' = any(p.proconfig)`.execute(conn);
    for (const { fn } of pinned.rows)
      await sql`/* citus_unpin_plan */ alter function ${sql.raw(fn)} reset plan_cache_mode`.execute(conn);
    const local = await sql<{ fn: string; id: number }>`/* citus_local_functions */
      select ${FUNCTION_NAME} as fn, p.oid::int8 as id from pg_catalog.pg_proc p
       where p.pronamespace = ${schema}::regnamespace
         and not exists (select 1 from pg_dist_object o
                          where o.classid = 'pg_catalog.pg_proc'::regclass and o.objid = p.oid)
       order by 1`.execute(conn);
    for (const { id } of local.rows)
      await sql`/* citus_distributed_function */ select create_distributed_function(${id}::oid::regprocedure)`.execute(
        conn,
      );
    // queue_stats as Citus can run it: a statement per queue, from the coordinator
    // (sql/routines/queue_stats_by_queue.sql). Again after a migrate reapplied the view's routine.
    const view = qualified(schema, 'queue_stats');
    const shape = await sql<{ per_queue: boolean }>`/* citus_queue_stats_shape */
      select pg_catalog.pg_get_viewdef(${view}::regclass) like '%queue_stats_by_queue()%' as per_queue`.execute(conn);
    if (shape.rows[0]?.per_queue === false)
      await sql`/* citus_queue_stats */
        create or replace view ${sql.raw(view)} as select * from ${sql.raw(qualified(schema, 'queue_stats_by_queue'))}()`.execute(
        conn,
      );
    await sql`/* citus_database_triggers */
      do $$
      begin
        if not exists (select 1 from pg_catalog.pg_db_role_setting s join pg_catalog.pg_database d on d.oid = s.setdatabase
                        where d.datname = current_database() and s.setrole = 0
                          and 'citus.enable_unsafe_triggers=on' = any(s.setconfig)) then
          execute format('alter database %I set citus.enable_unsafe_triggers = on', current_database());
        end if;
      end
      $$`.execute(conn);
    return { distributed, reference, functions: local.rows.map((r) => r.fn), unpinned: pinned.rows.map((r) => r.fn) };
  });
}

/** A function's schema-qualified signature, whatever the session's search_path. */
const FUNCTION_NAME = sql.raw(
  `quote_ident(p.pronamespace::regnamespace::text) || '.' || quote_ident(p.proname) || '(' || pg_catalog.pg_get_function_identity_arguments(p.oid) || ')'`,
);

function qualified(schema: string, table: string): string {
  return `"${schema}"."${table}"`;
}
