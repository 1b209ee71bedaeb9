import { afterEach, describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe.each(ENGINES)('storage limits on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  /** A task of exactly 1000 bytes: 3-byte name + 997-byte payload. */
  const task = (i: number) => ({ name: `n${String(i).padStart(2, '0')}`, payload: 'p'.repeat(997) });

  const settle = async (adds: Promise<unknown>[]) => {
    const outcomes = await Promise.all(
      adds.map((p) =>
        p.then(
          () => 'ok',
          (e: unknown) => (isQueueError(e) ? e.code : String(e)),
        ),
      ),
    );
    return {
      ok: outcomes.filter((o) => o === 'ok').length,
      refused: outcomes.filter((o) => o === 'STORAGE_LIMIT_EXCEEDED').length,
      other: outcomes.filter((o) => o !== 'ok' && o !== 'STORAGE_LIMIT_EXCEEDED'),
    };
  };

  it('lets exactly as many concurrent adds through as fit the queue limit', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('small', { storageLimitBytes: 10_000 })]), {
      poolSize: 16,
    });
    const q = t.service.getQueue('small');
    const result = await settle(Array.from({ length: 40 }, (_, i) => q.add(task(i))));
    expect(result).toEqual({ ok: 10, refused: 30, other: [] });
    const [row] = await t.sql<{ n: string; bytes: string }>(
      `select count(*)::text as n, sum(size_bytes)::text as bytes from ${t.schema}.tasks`,
    );
    expect(row).toEqual({ n: '10', bytes: '10000' });
    // Deleting frees room at once.
    const [first] = await q.listTasks({ limit: 1 });
    await q.deleteTask(first!);
    await q.add(task(99));
    await expect(q.add(task(98))).rejects.toMatchObject({ code: 'STORAGE_LIMIT_EXCEEDED' });
    expect((await q.fetchStatistics()).totalBytes).toBe(10_000);
  });

  it('refuses a batch that would pass the limit as a whole, storing nothing', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('small', { storageLimitBytes: 5_000 })]));
    const q = t.service.getQueue('small');
    await q.add([task(1), task(2)]);
    await expect(q.add([task(3), task(4), task(5), task(6)])).rejects.toMatchObject({
      code: 'STORAGE_LIMIT_EXCEEDED',
      message: expect.stringMatching(/storage limit of 5000 bytes/),
    });
    expect((await q.listTasks()).map((x) => x.name)).toEqual(['n01', 'n02']);
  });

  it('holds the total limit across queues', async () => {
    t = await openTestService(
      engine,
      serviceConfig([pullQueue('a'), pullQueue('b')], { totalStorageLimitBytes: 6_000 }),
      {
        poolSize: 16,
      },
    );
    const a = t.service.getQueue('a');
    const b = t.service.getQueue('b');
    const result = await settle(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).add(task(i))));
    expect(result).toEqual({ ok: 6, refused: 14, other: [] });
    const [row] = await t.sql<{ bytes: string }>(
      `select sum(byte_count)::text as bytes from ${t.schema}.queue_storage`,
    );
    expect(row?.bytes).toBe('6000');
  });
});

describe.each(ENGINES)('storage limits and tag changes on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  it('refuses a tag change that would pass the limit, and keeps the task as it was', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('small', { storageLimitBytes: 1_000 })]));
    const q = t.service.getQueue('small');
    await q.add({ name: 'big', payload: 'p'.repeat(700) });
    const [leased] = await q.leaseTasks({ lease: 60, maxTasks: 1 });
    await expect(q.updateTask(leased!, { lease: 60, tag: 't'.repeat(400) })).rejects.toMatchObject({
      code: 'STORAGE_LIMIT_EXCEEDED',
    });
    const after = await q.getTask('big');
    expect(after.tag).toBeNull();
    expect((await q.fetchStatistics()).totalBytes).toBe(703);
    // A tag that fits is fine.
    const tagged = await q.updateTask(leased!, { lease: 60, tag: 'small-tag' });
    expect(tagged.tag).toBe('small-tag');
  });
});
