import { afterEach, describe, expect, it } from 'vitest';
import type { AccessControl, QueueAction } from '../../src/auth/access-control.js';
import { QueueError } from '../../src/core/errors.js';
import { pullQueue } from '../helpers/configs.js';
import { openHarness, type Harness } from './harness.js';

const SEARCH = '/taskqueue/admin/v1/taskqueues/q/tasks/search';

/** Token "admin" may do anything; "consumer" is refused the admin action, as a queue ACL's consumer is. */
function adminOnly(actions: QueueAction[]): AccessControl {
  return {
    async check(credentials, _queue, action) {
      actions.push(action);
      const token = credentials.authorization?.replace(/^Bearer /, '');
      if (token !== 'admin' && action === 'queue.admin') {
        throw new QueueError('PERMISSION_DENIED', 'administrators only');
      }
      return { principal: { email: `${token}@example.com`, scopes: [] }, mayReadAcl: true };
    },
  };
}

describe('admin REST: searching tasks', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const admin = { headers: { authorization: 'Bearer admin' } };

  it('searches by the filters, pages on with its token, and is for administrators only', async () => {
    const actions: QueueAction[] = [];
    h = await openHarness('postgres', { queues: [pullQueue('q')], accessControl: adminOnly(actions) });
    const { t } = h;
    for (const [name, tag, error, payload] of [
      ['order-1', 'eu', null, '{"sku":"A-1"}'],
      ['order-2', 'eu', 'HTTP 502', '{"sku":"B-2"}'],
      ['order-3', 'us', 'HTTP 502', '{"sku":"A-1"}'],
      ['refund-1', 'eu', null, '{}'],
    ] as const) {
      await t.sql(
        `insert into ${t.schema}.tasks (queue_id, name, eta, tag, payload, last_error)
         select id, $1, now(), $2, convert_to($4, 'UTF8'), $3 from ${t.schema}.queues where name = 'q'`,
        [name, tag, error, payload],
      );
    }
    const search = async (query: string) => {
      const r = await h!.call(`${SEARCH}?${query}`, admin);
      expect(r.status, r.text).toBe(200);
      return r.json as { items: { name: string; payloadBase64: string }[]; nextPageToken?: string; bounded: boolean };
    };
    const names = (body: { items: { name: string }[] }) => body.items.map((item) => item.name);
    expect(names(await search('namePrefix=order'))).toEqual(['order-1', 'order-2', 'order-3']);
    expect(names(await search('tag=eu&errorText=http%20502'))).toEqual(['order-2']);
    expect(names(await search('payloadText=A-1'))).toEqual(['order-1', 'order-3']);
    expect(names(await search('state=failing&tagPrefix=u'))).toEqual(['order-3']);
    const first = await search('namePrefix=order&maxResults=2');
    expect(names(first)).toEqual(['order-1', 'order-2']);
    expect(first.bounded).toBe(false);
    expect(Buffer.from(first.items[0]!.payloadBase64, 'base64').toString()).toBe('{"sku":"A-1"}');
    const second = await search(`namePrefix=order&maxResults=2&pageToken=${first.nextPageToken!}`);
    expect(names(second)).toEqual(['order-3']);
    expect(second.nextPageToken).toBeUndefined();

    // A bad filter is a 400 that says why.
    const bad = await h.call(`${SEARCH}?namePrefix=a%20b`, admin);
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/namePrefix/);
    expect((await h.call(`${SEARCH}?maxResults=101`, admin)).status).toBe(400);
    expect((await h.call(`${SEARCH}?pageToken=nonsense`, admin)).status).toBe(400);

    // The queue's ACL: a consumer may list tasks over v1beta2, not search them here.
    const refused = await h.call(`${SEARCH}?namePrefix=order`, { headers: { authorization: 'Bearer consumer' } });
    expect(refused.status).toBe(403);
    expect(actions.every((action) => action === 'queue.admin')).toBe(true);
  });

  it('stops a request at 10,000 candidates, says so, and goes on from its token', async () => {
    h = await openHarness('postgres', { queues: [pullQueue('q')] });
    const { t } = h;
    await t.sql(
      `insert into ${t.schema}.tasks (queue_id, name, eta, payload, last_error)
       select q.id, 't' || lpad(i::text, 5, '0'), now() - interval '1 day' + i * interval '1 millisecond', '\\x'::bytea,
              case when i = 10020 then 'disk full' end
         from ${t.schema}.queues q, generate_series(1, 10050) i where q.name = 'q'`,
    );
    const first = await h.call(`${SEARCH}?errorText=disk`);
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ items: [], scanned: 10_000, bounded: true });
    const second = await h.call(`${SEARCH}?errorText=disk&pageToken=${first.json.nextPageToken}`);
    expect(second.json).toMatchObject({
      items: [{ name: 't10020', lastError: 'disk full' }],
      scanned: 50,
      bounded: false,
    });
    expect(second.json.nextPageToken).toBeUndefined();
  });
});
