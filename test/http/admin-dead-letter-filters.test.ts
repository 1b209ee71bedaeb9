import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue } from '../helpers/configs.js';
import { openHarness, type Harness } from './harness.js';

describe('admin REST: dead letters filtered and newest first', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('takes tagPrefix, errorContains and order=newest, and pages on with its token', async () => {
    h = await openHarness('postgres', { queues: [pullQueue('q', { maxLeases: 1 })] });
    const { t } = h;
    for (const [name, tag, error, minutes] of [
      ['a', 'billing-eu', 'HTTP 502', 30],
      ['b', 'billing-us', 'timeout', 20],
      ['c', 'mail', 'http 502', 10],
    ] as const) {
      await t.sql(
        `insert into ${t.schema}.task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, died_at, last_error)
         select id, $1, $2, '\\x'::bytea, 1, now(), now() - $4 * interval '1 minute', $3 from ${t.schema}.queues where name = 'q'`,
        [name, tag, error, minutes],
      );
    }
    const list = async (query: string) => {
      const r = await h!.call(`/taskqueue/admin/v1/taskqueues/q/deadLetters?${query}`);
      expect(r.status, r.text).toBe(200);
      return r.json as { items: { name: string }[]; nextPageToken?: string };
    };
    const names = (body: { items: { name: string }[] }) => body.items.map((item) => item.name);
    expect(names(await list(''))).toEqual(['a', 'b', 'c']);
    expect(names(await list('tagPrefix=billing'))).toEqual(['a', 'b']);
    expect(names(await list('errorContains=502&order=newest'))).toEqual(['c', 'a']);
    const first = await list('order=newest&maxResults=2');
    expect(names(first)).toEqual(['c', 'b']);
    expect(names(await list(`order=newest&maxResults=2&pageToken=${first.nextPageToken!}`))).toEqual(['a']);
  });
});
