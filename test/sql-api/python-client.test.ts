import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { openTestService, testPgUrl, type TestService } from '../helpers/engines.js';

/**
 * From another language: examples/sql-api/python_psycopg2.py, run with
 * Debian's python3 and python3-psycopg2 (.ci/run installs it), as a login
 * role that is a member of the SQL API's two roles and of nothing else.
 */
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('../../examples/sql-api/python_psycopg2.py', import.meta.url));
const run = promisify(execFile);

interface Added {
  rolledBack: string;
  committed: { name: string; payload: string }[];
}
interface Consumed {
  consumed: { name: string; payload: string; tag: string | null; retryCount: number; deleted: boolean }[];
}

describe('the SQL API from Python (psycopg2)', () => {
  let t: TestService;
  let admin: pg.Client;
  let dsn: string;
  let user: string;
  beforeAll(async () => {
    const probe = spawnSync(PYTHON, ['-c', 'import psycopg2'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      throw new Error(
        `this test needs Debian's python3 with python3-psycopg2 (apt-get install -y python3-psycopg2; .ci/run installs it): ${probe.error?.message ?? probe.stderr}`,
      );
    }
    t = await openTestService('postgres', serviceConfig([pullQueue('py', { storageLimitBytes: 10_000 })]));
    user = `${t.schema}_py`;
    admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    // A password, for clusters that do not trust loopback logins.
    await admin.query(
      `create role ${user} login password 'sql-api-test' in role ${t.schema}_producer, ${t.schema}_consumer`,
    );
    const url = new URL(testPgUrl());
    url.username = user;
    url.password = 'sql-api-test';
    dsn = url.toString();
  });
  afterAll(async () => {
    await t?.close();
    await admin?.query(`drop role if exists ${user}`);
    await admin?.end();
  });

  const python = async <T>(action: string): Promise<T> =>
    JSON.parse((await run(PYTHON, [SCRIPT, dsn, t.schema, 'py', action])).stdout) as T;

  it('adds in a transaction it rolls back (nothing visible or counted) and one it commits; the service leases those byte for byte; Python consumes them', async () => {
    const added = await python<Added>('add');
    expect(added.committed).toHaveLength(3);
    expect(added.committed[1]!.name).toBe('py-chosen');

    const tasks = await t.sql<{ name: string }>(`select name from ${t.schema}.tasks`);
    expect(tasks.map((row) => row.name).sort()).toEqual(added.committed.map((task) => task.name).sort());
    expect(tasks.map((row) => row.name)).not.toContain(added.rolledBack);
    const [storage] = await t.sql<{ counted: string; stored: string }>(
      `select (select sum(byte_count) from ${t.schema}.queue_storage) as counted, (select sum(size_bytes) from ${t.schema}.tasks) as stored`,
    );
    expect(storage!.counted).toBe(storage!.stored);

    const queue = t.service.getQueue('py');
    const leased = await queue.leaseTasks({ maxTasks: 10, lease: 60 });
    expect(leased.map((task) => [task.name, task.payload.toString('hex')])).toEqual(
      added.committed.map((task) => [task.name, task.payload]),
    );
    expect(leased[0]!.tag).toBe('py');
    for (const task of leased) await queue.modifyTaskLease(task, 0);

    const { consumed } = await python<Consumed>('consume');
    expect(consumed.map((task) => [task.name, task.payload, task.retryCount, task.deleted])).toEqual(
      added.committed.map((task) => [task.name, task.payload, 2, true]),
    );
    expect(await t.sql(`select name from ${t.schema}.tasks`)).toEqual([]);
  });
});
