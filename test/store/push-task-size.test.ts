import { afterEach, describe, expect, it } from 'vitest';
import { serviceConfig } from '../helpers/configs.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pushQueue } from '../helpers/push-sink.js';

/**
 * A push task's request (url, headers and the rest stored in tasks.push)
 * counts toward storage limits with its payload, name and tag (sql/0012).
 */
describe.each(ENGINES)('push requests in storage limits (%s)', (engine) => {
  let t: TestService | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** Rate 0: nothing is dispatched, so the rows stay as added. Nothing listens at the target. */
  const open = (storageLimitBytes: number | null) =>
    openTestService(
      engine,
      serviceConfig([pushQueue('h', 'http://127.0.0.1:9', { ratePerSecond: 0 }, { storageLimitBytes })]),
    );

  it("counts a push task's url and headers in its stored size and the queue's counters", async () => {
    t = await open(null);
    const q = t.service.getQueue('h');
    const headers = { 'X-Long': 'v'.repeat(300) };
    await q.add({ name: 'p1', url: `/${'u'.repeat(200)}`, headers, payload: 'body' });
    const [row] = await t.sql<{ size: number; push_bytes: number }>(
      `select size_bytes as size, octet_length(push::text) as push_bytes from ${t.schema}.tasks where name = 'p1'`,
    );
    // The request's JSON text holds the 201-character url and the 300-byte header value.
    expect(row!.push_bytes).toBeGreaterThan(501);
    expect(row!.size).toBe(4 + 2 + row!.push_bytes);
    expect((await q.fetchStatistics()).totalBytes).toBe(row!.size);
    const [counted] = await t.sql<{ bytes: string }>(
      `select sum(byte_count)::text as bytes from ${t.schema}.queue_storage`,
    );
    expect(Number(counted!.bytes)).toBe(row!.size);
    await q.deleteTask('p1');
    expect((await q.fetchStatistics()).totalBytes).toBe(0);
  });

  it('refuses a push task whose payload fits the limit but whose url and headers do not', async () => {
    t = await open(1_000);
    const q = t.service.getQueue('h');
    // 500 bytes of payload alone fit; with a 600-byte header value the task does not.
    await expect(
      q.add({ name: 'big', headers: { A: 'v'.repeat(600) }, payload: 'p'.repeat(500) }),
    ).rejects.toMatchObject({
      code: 'STORAGE_LIMIT_EXCEEDED',
    });
    await q.add({ name: 'small', payload: 'p'.repeat(500) });
    expect((await q.listTasks()).map((task) => task.name)).toEqual(['small']);
  });
});
