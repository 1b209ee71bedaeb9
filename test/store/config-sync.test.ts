import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openTaskQueue, type OpenTaskQueue } from '../../src/open-task-queue.js';
import { freshSchema, testPgUrl } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe('queues removed from the configuration (postgres)', () => {
  const schema = freshSchema();
  let service: OpenTaskQueue | undefined;
  afterEach(async () => {
    await service?.close();
    const pool = new pg.Pool({ connectionString: testPgUrl(), max: 1 });
    await pool.query(`drop schema if exists ${schema} cascade`);
    await pool.end();
  });

  const open = (names: string[]) =>
    openTaskQueue({
      config: serviceConfig(names.map((n) => pullQueue(n))),
      schema,
      database: { kind: 'postgres', url: testPgUrl(), poolSize: 2 },
      cleanupIntervalMs: 0,
      // An owner going back to an earlier revision's configuration on purpose (config sync --force).
      ownQueues: true,
      forceQueues: true,
    });

  it('stop serving but keep their tasks, which come back with the queue', async () => {
    service = await open(['keep', 'gone']);
    await service.getQueue('gone').add([{ name: 'g1', payload: 'one' }, { name: 'g2' }]);
    await service.close();

    service = await open(['keep']);
    expect(() => service!.getQueue('gone')).toThrow(expect.objectContaining({ code: 'UNKNOWN_QUEUE' }));
    const pool = new pg.Pool({ connectionString: testPgUrl(), max: 1 });
    const { rows } = await pool.query(
      `select q.name, q.active, count(t.name)::int as tasks from ${schema}.queues q left join ${schema}.tasks t on t.queue_id = q.id group by q.name, q.active order by q.name`,
    );
    await pool.end();
    expect(rows).toEqual([
      { name: 'default', active: true, tasks: 0 },
      { name: 'gone', active: false, tasks: 2 },
      { name: 'keep', active: true, tasks: 0 },
    ]);
    await service.close();

    service = await open(['keep', 'gone']);
    const leased = await service.getQueue('gone').leaseTasks({ lease: 60, maxTasks: 10 });
    expect(leased.map((t) => t.name)).toEqual(['g1', 'g2']);
  });
});
