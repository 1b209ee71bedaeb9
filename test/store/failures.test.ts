import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/engine/database.js';
import { PgTaskStore } from '../../src/store/pg-task-store.js';
import { openTestService, testPgUrl, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe('a lost or slow database (postgres)', () => {
  let t: TestService | undefined;
  afterEach(async () => t?.close());

  it('answers TRANSIENT_ERROR quickly when the server is unreachable', async () => {
    const database = await openDatabase({
      kind: 'postgres',
      url: 'postgres://postgres@127.0.0.1:1/none',
      connectTimeoutMs: 2000,
    });
    const store = new PgTaskStore(database, 'taskqueue');
    const started = Date.now();
    await expect(store.ping()).rejects.toMatchObject({ code: 'TRANSIENT_ERROR', retryable: true });
    expect(Date.now() - started).toBeLessThan(5000);
    await store.close();
  });

  it('answers DEADLINE_EXCEEDED instead of hanging behind a lock', async () => {
    // Every statement of the service runs under this timeout, migrations and
    // adds included: long enough for them on a busy machine, and what the
    // delete behind the lock waits before it gives up.
    t = await openTestService('postgres', serviceConfig([pullQueue('q')]), { statementTimeoutMs: 3_000 });
    const q = t.service.getQueue('q');
    await q.add({ name: 'locked' });
    const other = new pg.Client({ connectionString: testPgUrl() });
    await other.connect();
    try {
      await other.query('begin');
      await other.query(`select * from ${t.schema}.tasks where name = 'locked' for update`);
      await expect(q.deleteTask('locked')).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED' });
      await other.query('rollback');
      // Nothing was lost: the task is still there and can be deleted now.
      expect(await q.deleteTask('locked')).toBe(true);
    } finally {
      await other.end();
    }
  });
});
