import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseOptions } from '../../src/store/engine/database.js';
import { testPGlite, testPgUrl, type TestEngine } from './engines.js';

/**
 * The upgrade fixtures (test/fixtures/upgrades/LABEL.sql): schemas that old
 * revisions of taskqueue made and filled through their own API, dumped by
 * pg_dump (scripts/upgrade-fixtures/make-upgrade-fixture.sh).
 */
export const FIXTURE_DIR = join(import.meta.dirname, '../fixtures/upgrades');
/** The schema name the fixtures were made in. */
const FIXTURE_SCHEMA = 'tq_upgrade_fixture';

/** SQL as an administrator runs it, on either engine. */
export interface AdminSql {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** Runs a script of many statements (simple protocol). */
  exec(text: string): Promise<void>;
  /** The options that open the service on the same database. */
  readonly database: DatabaseOptions;
  close(): Promise<void>;
}

export async function adminSql(engine: TestEngine): Promise<AdminSql> {
  if (engine === 'pglite') {
    const instance = await testPGlite();
    return {
      query: async <R>(text: string, params?: unknown[]) => (await instance.query<R>(text, params)).rows,
      exec: async (text) => void (await instance.exec(text)),
      database: { kind: 'pglite-instance', instance },
      close: async () => {},
    };
  }
  const client = new pg.Client({ connectionString: testPgUrl() });
  await client.connect();
  return {
    query: async <R>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as R[],
    exec: async (text) => void (await client.query(text)),
    database: { kind: 'postgres', url: testPgUrl(), poolSize: 4 },
    close: () => client.end(),
  };
}

/**
 * A fixture's dump, made loadable into `schema` on either engine: the schema
 * renamed (the SQL API's roles with it: <schema>_producer), psql's
 * meta-commands (\restrict) dropped, the session settings made local to one
 * transaction (PGlite's session is shared by the whole test file), and every
 * timestamp shifted by the time since the fixture was made, so that what was
 * in the future then (ETAs, leases) is as far in the future now, and
 * tombstones are as young. Returns the script and the roles its GRANTs name.
 */
export function fixtureScript(label: string, schema: string, now = new Date()): { script: string; roles: string[] } {
  const dump = readFileSync(join(FIXTURE_DIR, `${label}.sql`), 'utf8');
  const madeAt = /^-- Made at: (\S+)$/m.exec(dump)?.[1];
  if (madeAt === undefined) throw new Error(`${label}.sql has no "-- Made at:" line`);
  const shiftMs = Math.max(0, Math.floor((now.getTime() - Date.parse(madeAt)) / 1000) * 1000);
  const body = dump
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n')
    .replaceAll(FIXTURE_SCHEMA, schema)
    .replace(/^SET (\w+) = /gm, 'SET LOCAL $1 = ')
    .replace(/set_config\('search_path', '', false\)/g, "set_config('search_path', '', true)")
    // pg_dump wrote timestamptz in UTC (PGTZ=UTC): whole seconds shift, the fraction is kept as written.
    .replace(/'(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(\.\d+)?\+00'/g, (_, seconds: string, fraction = '') => {
      const shifted = new Date(Date.parse(`${seconds.replace(' ', 'T')}Z`) + shiftMs);
      return `'${shifted.toISOString().slice(0, 19).replace('T', ' ')}${fraction}+00'`;
    });
  const roles = [...new Set([...body.matchAll(/ TO ("?)(\w+)\1;$/gm)].map((m) => m[2]!))].filter(
    (role) => role !== 'postgres',
  );
  return { script: `BEGIN;\n${body}\nCOMMIT;\n`, roles };
}

/** Loads a fixture into `schema` (which must not exist), making the roles its GRANTs name where missing. */
export async function loadFixture(admin: AdminSql, label: string, schema: string): Promise<void> {
  const { script, roles } = fixtureScript(label, schema);
  for (const role of roles) {
    const [found] = await admin.query('select 1 from pg_roles where rolname = $1', [role]);
    if (!found) await admin.exec(`create role ${pg.escapeIdentifier(role)} nologin`);
  }
  await admin.exec(script);
}

/** Drops a schema and the SQL API's roles of it (roles belong to the whole cluster). */
export async function dropFixtureSchema(admin: AdminSql, schema: string): Promise<void> {
  await admin.exec(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`);
  await admin.exec(
    `drop role if exists ${pg.escapeIdentifier(`${schema}_producer`)}, ${pg.escapeIdentifier(`${schema}_consumer`)}`,
  );
}
