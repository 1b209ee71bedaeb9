import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { pushQueue } from '../helpers/push-sink.js';
import { freshSchema, openTestService, testPgUrl, type TestService } from '../helpers/engines.js';

/**
 * What docs/sql-api.md ("What each role can reach") says the roles reach:
 * every queue of their schema, whatever its <acl>, push queues included
 * (which REST opens to administrators only). A role has no e-mail to check
 * an ACL against; the docs say so, and this keeps them true.
 */
const config = serviceConfig([
  pullQueue('open'),
  // An ACL naming neither the producer nor the consumer: REST would refuse both.
  pullQueue('guarded', { acl: { userEmails: ['only-reader@example.com'], writerEmails: ['only-writer@example.com'] } }),
  // Rate 0: its tasks stay (nothing listens at its target).
  pushQueue('hooks', 'http://127.0.0.1:1', { ratePerSecond: 0 }),
]);

describe('SQL API roles: what each reaches (PostgreSQL)', () => {
  let t: TestService;
  let admin: pg.Client;
  const app = `app_${freshSchema()}`;
  beforeAll(async () => {
    t = await openTestService('postgres', config);
    admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    await admin.query(`create role ${app} nologin`);
  });
  afterAll(async () => {
    await admin.query(`drop role if exists ${app}`);
    await admin.end();
    await t.close();
  });

  /** Runs `text` as the application role holding `role` (committed); the SQLSTATE when it fails. */
  async function as(
    role: 'producer' | 'consumer',
    text: string,
  ): Promise<Record<string, unknown>[] | { code: string }> {
    await admin.query(`grant ${t.schema}_${role} to ${app}`);
    await admin.query('begin');
    try {
      await admin.query(`set local role ${app}`);
      const rows = (await admin.query(text)).rows as Record<string, unknown>[];
      await admin.query('commit');
      return rows;
    } catch (error) {
      await admin.query('rollback');
      return { code: String((error as { code?: unknown }).code) };
    } finally {
      await admin.query(`revoke ${t.schema}_${role} from ${app}`);
    }
  }
  const s = () => t.schema;

  it('a producer adds to every pull queue whatever its ACL, and to push queues', async () => {
    expect(await as('producer', `select ${s()}.add_task('open', 'a'::bytea, 'p-open') as n`)).toEqual([
      { n: 'p-open' },
    ]);
    expect(
      await as('producer', `select ${s()}.add_task('guarded', 'secret payload'::bytea, 'p-guarded') as n`),
    ).toEqual([{ n: 'p-guarded' }]);
    expect(await as('producer', `select ${s()}.add_push_task('hooks', '/x', name => 'p-hook') as n`)).toEqual([
      { n: 'p-hook' },
    ]);
    expect((await t.service.getQueue('hooks').getTask('p-hook')).push?.url).toBe('/x');
  });

  it('a consumer leases and reads the payloads of every pull queue whatever its ACL, deletes push tasks, leases none of them', async () => {
    await t.service.getQueue('guarded').add({ name: 'c-guarded', payload: 'guarded payload' });
    await t.service.getQueue('hooks').add({ name: 'c-hook' });
    const leased = await as(
      'consumer',
      `select name, convert_from(payload, 'UTF8') as payload from ${s()}.lease_tasks('guarded', 10, 60) where name = 'c-guarded'`,
    );
    expect(leased).toEqual([{ name: 'c-guarded', payload: 'guarded payload' }]);
    expect(await as('consumer', `select ${s()}.delete_task('guarded', 'c-guarded') as deleted`)).toEqual([
      { deleted: true },
    ]);
    expect(await as('consumer', `select ${s()}.delete_task('hooks', 'c-hook') as deleted`)).toEqual([
      { deleted: true },
    ]);
    // Leasing stays pull-only (TQ004, INVALID_QUEUE_MODE), as over REST.
    expect(await as('consumer', `select * from ${s()}.lease_tasks('hooks', 1, 60)`)).toEqual({ code: 'TQ004' });
  });

  it('docs/sql-api.md says so', () => {
    const doc = readFileSync(new URL('../../docs/sql-api.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('### What each role can reach'), doc.indexOf('## Examples'));
    expect(section).toContain('per schema, not per queue');
    for (const fn of [
      'add_task',
      'add_tasks',
      'add_push_task',
      'lease_tasks',
      'modify_lease',
      'delete_task',
      'delete_tasks',
    ])
      expect(section).toContain(`\`${fn}\``);
    expect(section).toMatch(/whatever its `<acl>`/);
    expect(section).toMatch(/push queue/);
  });
});
