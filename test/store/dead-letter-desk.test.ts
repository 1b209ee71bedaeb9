import { afterEach, describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { operatorOf } from '../helpers/operator-of.js';

describe.each(ENGINES)('the dead-letter desk on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  /** Dead letters as the lease leaves them (sql/0008, sql/0012): `minutesAgo` spreads their deaths. */
  const letters = async (rows: { name: string; tag: string | null; error: string | null; minutesAgo: number }[]) => {
    for (const row of rows) {
      await t.sql(
        `insert into ${t.schema}.task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, died_at, last_error)
         select id, $1, $2, convert_to($1, 'UTF8'), 3, now() - interval '1 day', now() - $3 * interval '1 minute', $4
           from ${t.schema}.queues where name = 'q'`,
        [row.name, row.tag, row.minutesAgo, row.error],
      );
    }
  };
  const open = async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q', { maxLeases: 3 })]));
    await letters([
      { name: 'a', tag: 'billing-eu', error: 'HTTP 502 Bad Gateway', minutesAgo: 90 },
      { name: 'b', tag: 'billing-us', error: 'timeout after 30 s', minutesAgo: 60 },
      { name: 'c', tag: 'mail', error: 'http 502', minutesAgo: 30 },
      { name: 'd', tag: null, error: null, minutesAgo: 5 },
      { name: 'e', tag: 'billing_x', error: '100% failed', minutesAgo: 1 },
    ]);
    return operatorOf(t.service.getQueue('q')).deadLetterDesk();
  };
  const names = (page: { name: string }[]) => page.map((letter) => letter.name);

  it('finds one letter by name, and null for a name that is not one', async () => {
    const desk = await open();
    const letter = await desk.get('c');
    expect(letter).toMatchObject({ name: 'c', tag: 'mail', retryCount: 3, lastError: 'http 502', queueName: 'q' });
    expect(letter!.payload.toString()).toBe('c');
    expect(await desk.get('zzz')).toBeNull();
    await expect(desk.get('bad name')).rejects.toSatisfy((error) => isQueueError(error, 'INVALID_TASK_NAME'));
  });

  it('filters by tag prefix (LIKE characters literal), error text in any case, and age; newest first when asked', async () => {
    const desk = await open();
    expect(names(await desk.list({ limit: 10 }))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(names(await desk.list({ limit: 10, newestFirst: true }))).toEqual(['e', 'd', 'c', 'b', 'a']);
    expect(names(await desk.list({ limit: 10, tagPrefix: 'billing-' }))).toEqual(['a', 'b']);
    // "_" is a character, not LIKE's any-character: billing_x only.
    expect(names(await desk.list({ limit: 10, tagPrefix: 'billing_' }))).toEqual(['e']);
    expect(names(await desk.list({ limit: 10, errorContains: 'HTTP 502' }))).toEqual(['a', 'c']);
    expect(names(await desk.list({ limit: 10, errorContains: '100%' }))).toEqual(['e']);
    const dbNowUsec = Number(
      (await t.sql<{ n: string }>(`select (extract(epoch from now()) * 1000000)::int8::text as n`))[0]!.n,
    );
    const olderThanAnHour = dbNowUsec - 3_600_000_000;
    expect(names(await desk.list({ limit: 10, diedBeforeUsec: olderThanAnHour }))).toEqual(['a', 'b']);
    expect(await desk.count({ tagPrefix: 'billing' })).toBe(3);
    expect(await desk.count({})).toBe(5);
    // Keyset pages backwards, newest first.
    const first = await desk.list({ limit: 2, newestFirst: true });
    expect(names(first)).toEqual(['e', 'd']);
    const last = first[1]!;
    expect(names(await desk.list({ limit: 2, newestFirst: true, after: last }))).toEqual(['c', 'b']);
  });

  it('redrives and deletes all a filter matches, never more than the count confirmed, with one audit entry each', async () => {
    const desk = await open();
    expect(await desk.redriveMatching({ tagPrefix: 'billing' }, 2)).toBe(2);
    // Oldest first, two of three: a and b went back, e (died since the count, say) stays.
    expect(names(await t.service.getQueue('q').listTasks({ limit: 10 }))).toEqual(['a', 'b']);
    expect(names(await desk.list({ limit: 10 }))).toEqual(['c', 'd', 'e']);
    expect(await desk.deleteMatching({ errorContains: '502' }, 10)).toBe(1);
    expect(names(await desk.list({ limit: 10 }))).toEqual(['d', 'e']);
    const entries = await t.sql<{ action: string; count: number; target: string | null }>(
      `select action, count, target from ${t.schema}.audit_log order by id`,
    );
    expect(entries).toEqual([
      { action: 'redrive', count: 2, target: null },
      { action: 'delete_dead_letters', count: 1, target: 'c' },
    ]);
    await expect(desk.list({ limit: 10, errorContains: 'x'.repeat(501) })).rejects.toSatisfy((error) =>
      isQueueError(error, 'INVALID_REQUEST'),
    );
  });
});
