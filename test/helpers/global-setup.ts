import pg from 'pg';
import type { TestProject } from 'vitest/node';

/** The PostgreSQL the tests use; CI starts it (.ci/run). */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    /** Why PostgreSQL cannot be used, or '' when it answered. */
    pgProblem: string;
  }
}

/**
 * Checks once that the test PostgreSQL answers. When it does not, it does
 * not throw: a throwing global setup stops vitest before any file runs
 * ("No test files found"), the unit project's included. It hands the reason
 * to `require-postgres.ts` instead, which fails every db file with it, so
 * the unit tests run and the run still fails, saying why.
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
    for (const { rolname } of orphans.rows)
      await client.query(`drop role if exists ${pg.escapeIdentifier(rolname)}`).catch(() => {});
    project.provide('pgUrl', url);
    project.provide('pgProblem', '');
  } catch (error) {
    const problem = postgresProblem(url, error);
    process.stderr.write(`\n${problem}\n\n`);
    project.provide('pgUrl', '');
    project.provide('pgProblem', problem);
  } finally {
    await client.end().catch(() => {});
  }
}

/** What failed, and what to do about it. */
export function postgresProblem(url: string, error: unknown): string {
  return (
    `The db tests need PostgreSQL at ${url} and it did not answer (${String(error)}). ` +
    'Every file of the db project fails with this message without running; the unit project ran as usual. ' +
    'Start PostgreSQL (user postgres, trust on loopback, database test) or point TEST_DATABASE_URL at one; ' +
    'README.md, "Running the tests", lists every system package the tests use, and .ci/run installs them on Debian.'
  );
}
