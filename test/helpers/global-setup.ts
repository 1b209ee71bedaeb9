import pg from 'pg';
import type { TestProject } from 'vitest/node';

/** The PostgreSQL the tests use; CI starts it (.ci/run). */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

/**
 * Checks once that the test PostgreSQL answers. The suite fails here, loudly,
 * rather than skipping the PostgreSQL half of every test.
 */
export default async function setup(project: TestProject): Promise<void> {
  const url = process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
    // Roles the SQL API's migration made for test schemas that are gone
    // (a run stopped before its clean-up): roles outlive schemas.
    const orphans = await client.query<{ rolname: string }>(
      `select rolname from pg_roles
        where rolname ~ '^t_[0-9a-f]{12}_(producer|consumer)$'
          and not exists (select 1 from pg_namespace where nspname = substring(rolname from '^(t_[0-9a-f]{12})_'))`,
    );
    for (const { rolname } of orphans.rows) await client.query(`drop role if exists ${pg.escapeIdentifier(rolname)}`).catch(() => {});
  } catch (error) {
    throw new Error(`the tests need PostgreSQL at ${url} (set TEST_DATABASE_URL): ${String(error)}`);
  } finally {
    await client.end().catch(() => {});
  }
  project.provide('pgUrl', url);
}
