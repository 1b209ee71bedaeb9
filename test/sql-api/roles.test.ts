import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/logger.js';
import { openTaskQueue } from '../../src/open-task-queue.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { pushQueue } from '../helpers/push-sink.js';
import {
  dropSchemaRolesSql,
  dropSchemas,
  freshSchema,
  openTestService,
  testPgUrl,
  type TestService,
} from '../helpers/engines.js';

/**
 * The roles of the SQL API on PostgreSQL: members reach the functions
 * granted to their role and nothing else (not the tables, not the other
 * functions, not another schema's API), and the functions' fixed
 * search_path cannot be steered by the caller. And a migrating user who may
 * not create roles still migrates, and is told.
 */
// Rate 0: the push queue's tasks stay (nothing listens at its target).
const config = serviceConfig([pullQueue('jobs'), pushQueue('hooks', 'http://127.0.0.1:1', { ratePerSecond: 0 })]);

describe('SQL API roles (PostgreSQL)', () => {
  let t: TestService;
  let other: TestService;
  let admin: pg.Client;
  const app = `app_${freshSchema()}`;
  beforeAll(async () => {
    t = await openTestService('postgres', config);
    other = await openTestService('postgres', config);
    admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    await admin.query(`create role ${app} nologin`);
  });
  afterAll(async () => {
    await admin.query(`drop role if exists ${app}`);
    await admin.end();
    await other.close();
    await t.close();
  });

  /** Runs `text` as the application role, in a transaction rolled back after; the SQLSTATE when it fails. */
  async function asApp(
    text: string,
    params: unknown[] = [],
  ): Promise<{ rows: Record<string, unknown>[] } | { code: string }> {
    await admin.query('begin');
    try {
      await admin.query(`set local role ${app}`);
      return { rows: (await admin.query(text, params)).rows };
    } catch (error) {
      return { code: String((error as { code?: unknown }).code) };
    } finally {
      await admin.query('rollback');
    }
  }
  const denied = { code: '42501' };

  it('creates NOLOGIN roles that hold EXECUTE on their functions only', async () => {
    const roles = await admin.query<{ rolname: string; rolcanlogin: boolean }>(
      `select rolname, rolcanlogin from pg_roles where rolname in ($1, $2) order by rolname`,
      [`${t.schema}_consumer`, `${t.schema}_producer`],
    );
    expect(roles.rows).toEqual([
      { rolname: `${t.schema}_consumer`, rolcanlogin: false },
      { rolname: `${t.schema}_producer`, rolcanlogin: false },
    ]);
    const grants = await admin.query<{ grantee: string; routine: string }>(
      `select grantee, routine_name as routine from information_schema.routine_privileges
        where routine_schema = $1 and grantee in ($2, $3) order by 1, 2`,
      [t.schema, `${t.schema}_consumer`, `${t.schema}_producer`],
    );
    expect(grants.rows.map((g) => `${g.grantee.slice(t.schema.length + 1)}:${g.routine}`)).toEqual([
      'consumer:delete_task',
      'consumer:delete_tasks',
      'consumer:lease_tasks',
      'consumer:modify_lease',
      'producer:add_push_task',
      'producer:add_task',
      'producer:add_tasks',
    ]);
  });

  it('a producer adds, and reaches neither the tables, nor the consumer functions, nor the helpers', async () => {
    await admin.query(`grant ${t.schema}_producer to ${app}`);
    try {
      const added = await asApp(`select ${t.schema}.add_task('jobs', 'x'::bytea, 'from-app') as name`);
      expect(added).toEqual({ rows: [{ name: 'from-app' }] });
      const pushed = await asApp(`select ${t.schema}.add_push_task('hooks', '/hook', name => 'push-from-app') as name`);
      expect(pushed).toEqual({ rows: [{ name: 'push-from-app' }] });
      expect(await asApp(`select count(*) from ${t.schema}.tasks`)).toEqual(denied);
      expect(
        await asApp(`insert into ${t.schema}.tasks (queue_id, name, eta, payload) values (1, 'sneak', now(), '')`),
      ).toEqual(denied);
      expect(await asApp(`select * from ${t.schema}.queues`)).toEqual(denied);
      expect(await asApp(`select * from ${t.schema}.lease_tasks('jobs', 1, 60)`)).toEqual(denied);
      expect(await asApp(`select ${t.schema}.delete_task('jobs', 'x')`)).toEqual(denied);
      expect(await asApp(`select ${t.schema}.generate_task_name()`)).toEqual(denied);
      // Another schema's API is another pair of roles.
      expect(await asApp(`select ${other.schema}.add_task('jobs', 'x'::bytea)`)).toEqual(denied);
      expect(await asApp(`select count(*) from ${other.schema}.tasks`)).toEqual(denied);
    } finally {
      await admin.query(`revoke ${t.schema}_producer from ${app}`);
    }
  });

  it('a consumer leases, modifies and deletes, and cannot add or read the tables', async () => {
    await t.service.getQueue('jobs').add({ name: 'for-consumer', payload: 'c' });
    await admin.query(`grant ${t.schema}_consumer to ${app}`);
    try {
      const cycle = await asApp(
        `with l as (select * from ${t.schema}.lease_tasks('jobs', 10, 60) where name = 'for-consumer')
         select l.name, ${t.schema}.modify_lease('jobs', l.name, l.lease_expires_at, 30) is not null as renewed,
                ${t.schema}.delete_task('jobs', l.name) as deleted from l`,
      );
      expect(cycle).toEqual({ rows: [{ name: 'for-consumer', renewed: true, deleted: true }] });
      expect(await asApp(`select ${t.schema}.add_task('jobs', 'x'::bytea)`)).toEqual(denied);
      expect(await asApp(`select ${t.schema}.add_push_task('hooks')`)).toEqual(denied);
      expect(await asApp(`select count(*) from ${t.schema}.task_tombstones`)).toEqual(denied);
      expect(await asApp(`select * from ${other.schema}.lease_tasks('jobs', 1, 60)`)).toEqual(denied);
    } finally {
      await admin.query(`revoke ${t.schema}_consumer from ${app}`);
    }
  });

  it("the functions' search_path is fixed: a caller's temporary objects do not stand in for the schema's", async () => {
    await admin.query(`grant ${t.schema}_producer to ${app}`);
    try {
      await admin.query('begin');
      await admin.query(`set local role ${app}`);
      await admin.query(`create temp table queues (id int, name text, mode text, active boolean)`);
      await admin.query(`insert into pg_temp.queues values (1, 'fake', 'pull', true)`);
      await admin.query(`set local search_path = pg_temp, ${t.schema}`);
      const failure = await admin
        .query(`select ${t.schema}.add_task('fake', 'x'::bytea)`)
        .catch((error: { code?: string }) => error.code);
      expect(failure).toBe('TQ003');
    } finally {
      await admin.query('rollback');
    }
    // Nor in the trigger every add runs: an empty task_tombstones of the
    // caller's, readable by all, does not free a held name.
    await t.service.getQueue('jobs').add({ name: 'held-name' });
    await t.service.getQueue('jobs').deleteTask('held-name');
    try {
      await admin.query('begin');
      await admin.query(`set local role ${app}`);
      await admin.query(`create temp table task_tombstones (queue_id int, name text)`);
      await admin.query(`grant all on pg_temp.task_tombstones to public`);
      await admin.query(`set local search_path = pg_temp, ${t.schema}`);
      const failure = await admin
        .query(`select ${t.schema}.add_task('jobs', 'x'::bytea, 'held-name')`)
        .catch((error: { code?: string }) => error.code);
      expect(failure).toBe('TQ001');
    } finally {
      await admin.query('rollback');
      await admin.query(`revoke ${t.schema}_producer from ${app}`);
    }
  });
});

describe('a migrating user who may not create roles', () => {
  const schema = freshSchema();
  const migrator = `${schema}_migrator`;
  let admin: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    // A password, for clusters that do not trust loopback logins.
    await admin.query(`create role ${migrator} login nocreaterole password 'sql-api-test'`);
    await admin.query(`grant create on database ${pg.escapeIdentifier(admin.database ?? 'test')} to ${migrator}`);
  });
  afterAll(async () => {
    await dropSchemas(schema);
    await admin.query(dropSchemaRolesSql(schema));
    await admin.query(`revoke create on database ${pg.escapeIdentifier(admin.database ?? 'test')} from ${migrator}`);
    await admin.query(`drop owned by ${migrator}`);
    await admin.query(`drop role ${migrator}`);
    await admin.end();
  });

  it('migrates, the functions work for the owner, and the service logs that the roles are missing', async () => {
    const warnings: { fields: object; message: string | undefined }[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      warn: (fields, message) => warnings.push({ fields, message }),
      error() {},
      child: () => logger,
    };
    const url = new URL(testPgUrl());
    url.username = migrator;
    url.password = 'sql-api-test';
    const service = await openTaskQueue({ config, schema, databaseUrl: url.toString(), cleanupIntervalMs: 0, logger });
    try {
      const roles = await admin.query(`select rolname from pg_roles where rolname in ($1, $2)`, [
        `${schema}_producer`,
        `${schema}_consumer`,
      ]);
      expect(roles.rows).toEqual([]);
      expect(warnings.map((w) => w.fields)).toContainEqual({
        schema,
        roles: [`${schema}_producer`, `${schema}_consumer`],
      });
      const owner = new pg.Client({ connectionString: url.toString() });
      await owner.connect();
      try {
        const added = await owner.query(`select ${schema}.add_task('jobs', 'owner'::bytea, 'by-owner') as name`);
        expect(added.rows).toEqual([{ name: 'by-owner' }]);
      } finally {
        await owner.end();
      }
    } finally {
      await service.close();
    }
  });
});
