import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/engine/database.js';
import { migrate, type SchemaSource } from '../../src/store/migrate/migrate.js';
import { MIGRATIONS, ROUTINES } from '../../src/store/migrate/migrations.js';
import type { Database } from '../../src/store/schema.js';
import { sqlDigest } from '../../src/store/migrate/sql-digest.js';
import { SQUASHED_VERSIONS, UNRELEASED_SQUASHED } from '../../src/store/migrate/unreleased-history.js';
import { droppedAfterAll, ENGINES, testPGlite, testPgUrl, type TestEngine } from '../helpers/engines.js';

/**
 * migrate()'s bookkeeping: the checksums of applied migrations, the routines
 * re-applied by digest, and a development build's unreleased history
 * (0012-0029) bridged to the squashed migrations.
 */
const schemaName = droppedAfterAll();

async function open(engine: TestEngine, poolSize = 2): Promise<OpenDatabase> {
  return engine === 'postgres'
    ? openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize })
    : openDatabase({ kind: 'pglite-instance', instance: await testPGlite() });
}

async function rows<R>(db: Kysely<Database>, text: string): Promise<R[]> {
  return (await sql.raw<R>(text).execute(db)).rows;
}

/** The source with one migration's text changed, as an edited file would be. */
function withEditedMigration(version: number): SchemaSource {
  return {
    migrations: MIGRATIONS.map((m) => (m.version === version ? { ...m, text: `${m.text}\n-- edited\n` } : m)),
    routines: ROUTINES,
  };
}

/** The source with tombstone_retention's routine changed: a retention of 3 days whatever the setting. */
function withChangedRoutine(extra = ''): SchemaSource {
  const text = `CREATE OR REPLACE FUNCTION tombstone_retention() RETURNS interval
LANGUAGE sql STABLE
AS $$ SELECT interval '3 days' $$;
${extra}`;
  return {
    migrations: MIGRATIONS,
    routines: ROUTINES.map((r) => (r.name === 'tombstone_retention' ? { ...r, text } : r)),
  };
}

describe.each(ENGINES)('migrate: checksums and routines (%s)', (engine) => {
  it('installs a fresh schema: every migration with its checksum, every routine with its digest; again, nothing', async () => {
    const database = await open(engine);
    const schema = schemaName();
    try {
      const first = await migrate(database.db, schema);
      expect(first.applied).toEqual(MIGRATIONS.map((m) => m.version));
      expect([...first.routines].sort()).toEqual(ROUTINES.map((r) => r.name).sort());
      const recorded = await rows<{ version: number; checksum: string }>(
        database.db,
        `select version, checksum from ${schema}.schema_migrations order by version`,
      );
      expect(recorded).toEqual(MIGRATIONS.map((m) => ({ version: m.version, checksum: sqlDigest(m.text) })));
      const digests = await rows<{ name: string; digest: string }>(
        database.db,
        `select name, digest from ${schema}.schema_routines order by name`,
      );
      expect(digests).toEqual(
        [...ROUTINES]
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .map((r) => ({ name: r.name, digest: sqlDigest(r.text) })),
      );
      const again = await migrate(database.db, schema);
      expect(again).toMatchObject({ applied: [], routines: [], current: MIGRATIONS.at(-1)!.version });
      // The SQL API works on it: a routine (add_task) calling another (add_tasks), a view over the counters.
      await rows(database.db, `insert into ${schema}.queues (name, mode) values ('q', 'pull')`);
      await rows(database.db, `select ${schema}.add_task('q', 'x'::bytea, 'a')`);
      const stats = await rows<{ total_tasks: string }>(database.db, `select total_tasks from ${schema}.queue_stats`);
      expect(stats.map((s) => Number(s.total_tasks))).toEqual([1]);
    } finally {
      await database.close();
    }
  });

  it('refuses a schema whose applied migration was edited, naming the file, on the fast path and in the transaction', async () => {
    const database = await open(engine);
    const schema = schemaName();
    try {
      await migrate(database.db, schema);
      // Fast path: everything applied, one checksum differs.
      await expect(migrate(database.db, schema, withEditedMigration(5))).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
        message: expect.stringMatching(/^sql\/0005_lease_history\.sql was changed after schema .* new migration/),
      });
      // In the transaction: a migration still to apply, and the edited one.
      await rows(database.db, `delete from ${schema}.schema_migrations where version = 17`);
      await expect(migrate(database.db, schema, withEditedMigration(5))).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
        message: expect.stringContaining('sql/0005_lease_history.sql'),
      });
      // Nothing was applied past the refusal.
      const versions = await rows<{ version: number }>(database.db, `select version from ${schema}.schema_migrations`);
      expect(versions.map((v) => v.version)).not.toContain(17);
    } finally {
      await database.close();
    }
  });

  it('records the checksum of a row older code wrote without one, and of a released schema (0.2.0: 0001-0011) runs 0012 on', async () => {
    const database = await open(engine);
    const schema = schemaName();
    try {
      // 0.2.0's code: 0001-0011, no checksum column, no routines table.
      await migrate(database.db, schema, { migrations: MIGRATIONS.filter((m) => m.version <= 11), routines: [] });
      await rows(database.db, `alter table ${schema}.schema_migrations drop column checksum`);
      await rows(database.db, `drop table ${schema}.schema_routines`);
      await rows(database.db, `insert into ${schema}.queues (name, mode) values ('q', 'pull')`);
      await rows(
        database.db,
        `insert into ${schema}.tasks (queue_id, name, eta, payload) select id, 'kept', now(), 'p'::bytea from ${schema}.queues`,
      );
      const result = await migrate(database.db, schema);
      expect(result.applied).toEqual(MIGRATIONS.filter((m) => m.version > 11).map((m) => m.version));
      expect(result.routines.length).toBe(ROUTINES.length);
      const recorded = await rows<{ version: number; checksum: string }>(
        database.db,
        `select version, checksum from ${schema}.schema_migrations order by version`,
      );
      expect(recorded).toEqual(MIGRATIONS.map((m) => ({ version: m.version, checksum: sqlDigest(m.text) })));
      const tasks = await rows<{ name: string }>(database.db, `select name from ${schema}.tasks`);
      expect(tasks).toEqual([{ name: 'kept' }]);
    } finally {
      await database.close();
    }
  });

  it('re-applies a routine whose text changed (fast path notices it), and only that one', async () => {
    const database = await open(engine);
    const schema = schemaName();
    try {
      await migrate(database.db, schema);
      const result = await migrate(database.db, schema, withChangedRoutine());
      expect(result).toMatchObject({ applied: [], routines: ['tombstone_retention'] });
      const retention = await rows<{ days: number }>(
        database.db,
        `select extract(day from ${schema}.tombstone_retention())::int as days`,
      );
      expect(retention).toEqual([{ days: 3 }]);
      expect((await migrate(database.db, schema, withChangedRoutine())).routines).toEqual([]);
      // The shipped text again: re-applied back.
      expect((await migrate(database.db, schema)).routines).toEqual(['tombstone_retention']);
    } finally {
      await database.close();
    }
  });

  it("bridges a development build's schema (bookkeeping 0012-0029) without losing a row", async () => {
    const database = await open(engine);
    const schema = schemaName();
    try {
      // A development build at 0029 made what 0001-0018 make (what 0019 and later
      // made is undone here); later migrations run on it as on any schema.
      const squashedEnd = Math.max(...SQUASHED_VERSIONS);
      await migrate(database.db, schema);
      await rows(database.db, `drop table ${schema}.task_attempts`);
      await rows(database.db, `alter table ${schema}.audit_log drop column task_names`);
      await rows(database.db, `alter table ${schema}.queues drop column source, drop column deleted_at`);
      await rows(database.db, `insert into ${schema}.queues (name, mode) values ('q', 'pull')`);
      await rows(database.db, `select ${schema}.add_tasks('q', array['a'::bytea, 'b'::bytea], array['t1', 't2'])`);
      await asDevelopmentBuild(database.db, schema, UNRELEASED_SQUASHED);
      // Restored into a cluster without its roles (roles are not the schema's).
      await rows(database.db, `drop owned by ${schema}_producer, ${schema}_consumer`);
      await rows(database.db, `drop role ${schema}_producer, ${schema}_consumer`);
      const result = await migrate(database.db, schema);
      expect(result.applied).toEqual(MIGRATIONS.filter((m) => m.version > squashedEnd).map((m) => m.version));
      expect(result.routines.length).toBe(ROUTINES.length);
      expect(result.current).toBe(MIGRATIONS.at(-1)!.version);
      const recorded = await rows<{ version: number; name: string; checksum: string }>(
        database.db,
        `select version, name, checksum from ${schema}.schema_migrations order by version`,
      );
      expect(recorded).toEqual(
        MIGRATIONS.map((m) => ({ version: m.version, name: m.name, checksum: sqlDigest(m.text) })),
      );
      const tasks = await rows<{ name: string }>(database.db, `select name from ${schema}.tasks order by name`);
      expect(tasks).toEqual([{ name: 't1' }, { name: 't2' }]);
      // The roles and their grants, as a fresh schema has them.
      const reach = await rows<{ add: boolean; lease: boolean; usage: boolean }>(
        database.db,
        `select has_function_privilege('${schema}_producer', '${schema}.add_task(text, bytea, text, text, timestamptz)', 'execute') as add,
                has_function_privilege('${schema}_consumer', '${schema}.lease_tasks(text, integer, integer, text, boolean)', 'execute') as lease,
                has_schema_privilege('${schema}_consumer', '${schema}', 'usage') as usage`,
      );
      expect(reach).toEqual([{ add: true, lease: true, usage: true }]);
      expect(await migrate(database.db, schema)).toMatchObject({ applied: [], routines: [] });
    } finally {
      await database.close();
    }
  });

  it('refuses a schema a development build left between 0012 and 0029, naming what it found', async () => {
    const database = await open(engine);
    const schema = schemaName();
    try {
      await migrate(database.db, schema);
      await asDevelopmentBuild(database.db, schema, UNRELEASED_SQUASHED.slice(0, 9));
      await expect(migrate(database.db, schema)).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
        message: expect.stringMatching(
          /intermediate state: it holds sql\/0012_task_last_error\.sql, .*sql\/0020_sql_api_generated_statements\.sql but not sql\/0021_sql_api_push_task\.sql, .*sql\/0029_queue_definitions\.sql/,
        ),
      });
    } finally {
      await database.close();
    }
  });
  it("leaves the routines of a schema a newer version migrated further alone (a rolling deploy's older process)", async () => {
    const database = await open(engine);
    const schema = schemaName();
    try {
      await migrate(database.db, schema);
      await rows(
        database.db,
        `insert into ${schema}.schema_migrations (version, name) values (9999, 'from_a_newer_version')`,
      );
      expect(await migrate(database.db, schema, withChangedRoutine())).toMatchObject({ applied: [], routines: [] });
      const retention = await rows<{ days: number }>(
        database.db,
        `select (extract(epoch from ${schema}.tombstone_retention()) / 86400)::int as days`,
      );
      expect(retention).toEqual([{ days: 7 }]);
    } finally {
      await database.close();
    }
  });

  it('refuses a schema that applied another migration under a number this version ships, naming the file', async () => {
    const database = await open(engine);
    const schema = schemaName();
    try {
      await migrate(database.db, schema);
      await rows(
        database.db,
        `update ${schema}.schema_migrations set name = 'another', checksum = null where version = 13`,
      );
      await expect(migrate(database.db, schema)).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
        message: expect.stringContaining('applied migration 0013 as "another", but this version\'s is sql/0013_'),
      });
    } finally {
      await database.close();
    }
  });
});

describe('migrate: processes racing (postgres)', () => {
  it('applies a changed routine once when two processes migrate at once', async () => {
    const schema = schemaName();
    const setup = await open('postgres');
    const racers = await Promise.all([open('postgres', 2), open('postgres', 2)]);
    try {
      await migrate(setup.db, schema);
      await rows(setup.db, `create table ${schema}.routine_runs (at timestamptz not null default clock_timestamp())`);
      const changed = withChangedRoutine('INSERT INTO routine_runs DEFAULT VALUES;\n');
      const results = await Promise.all(racers.map((r) => migrate(r.db, schema, changed)));
      expect(results.flatMap((r) => r.routines)).toEqual(['tombstone_retention']);
      const runs = await rows<{ n: number }>(setup.db, `select count(*)::int as n from ${schema}.routine_runs`);
      expect(runs).toEqual([{ n: 1 }]);
    } finally {
      await Promise.all([setup, ...racers].map((d) => d.close()));
    }
  });
});

/**
 * Makes a schema's bookkeeping look like a development build's after 0.2.0:
 * the given rows of 0012-0029 in place of the squashed ones, no checksums,
 * no schema_routines (the schema itself is the same: the squash was checked
 * against that build's by a pg_dump comparison).
 */
async function asDevelopmentBuild(
  db: Kysely<Database>,
  schema: string,
  unreleased: readonly (readonly [number, string])[],
): Promise<void> {
  await rows(db, `delete from ${schema}.schema_migrations where version > 11`);
  await rows(db, `alter table ${schema}.schema_migrations drop column checksum`);
  await rows(db, `drop table ${schema}.schema_routines`);
  for (const [version, name] of unreleased)
    await rows(db, `insert into ${schema}.schema_migrations (version, name) values (${version}, '${name}')`);
}
