import pg from 'pg';
import type { TestProject } from 'vitest/node';
import postgresSetup from '../helpers/global-setup.js';
import { citusUrl } from './cluster.js';

/**
 * Points the db helpers at the Citus coordinator (TEST_DATABASE_URL) after
 * checking that it is one, with two workers: a suite that ran on a plain
 * PostgreSQL would pass without proving anything.
 */
export default async function setup(project: TestProject): Promise<void> {
  const url = citusUrl();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ workers: string }>(
      `select count(*) as workers from pg_dist_node where noderole = 'primary' and groupid <> 0 and isactive`,
    );
    if (Number(rows[0]?.workers) < 2) throw new Error(`${rows[0]?.workers ?? 0} active workers, the suite needs 2`);
  } catch (error) {
    throw new Error(
      `the Citus suite needs a Citus coordinator with two workers at ${url} (${String(error)}): ` +
        'start one with scripts/citus/cluster.sh start (README, "Tests on Citus")',
    );
  } finally {
    await client.end().catch(() => {});
  }
  process.env.TEST_DATABASE_URL = url;
  await postgresSetup(project);
}
