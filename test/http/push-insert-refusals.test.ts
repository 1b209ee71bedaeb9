import { afterEach, describe, expect, it } from 'vitest';
import { PUSH_LIMITS } from '../../src/core/push/push-rules.js';
import { pushQueue } from '../helpers/push-sink.js';
import { batchBody, parseBatchReply, sendBatch } from './batch-helpers.js';
import { openHarness, queuePath, type Harness } from './harness.js';

/**
 * tasks.insert on a push queue, alone and in a batch, refuses what the
 * in-process add refuses (issue 30, items 1, 2, 4, 5): too many headers,
 * header values and names the HTTP client cannot send, a URL that climbs
 * above its root; and it drops callers' X-CloudScheduler headers.
 */
describe('tasks.insert refusals of a push request', () => {
  let h: Harness | undefined;
  afterEach(async () => h?.close());
  const open = async () => {
    // Rate 0: nothing is dispatched.
    h = await openHarness('postgres', { queues: [pushQueue('hooks', 'http://127.0.0.1:1', { ratePerSecond: 0 })] });
    return h;
  };
  const insert = (body: Record<string, unknown>) =>
    h!.call(`${queuePath('hooks')}/tasks`, { method: 'POST', body: { payloadBase64: '', ...body } });
  const headerList = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `X-H${i}`, value: 'v' }));

  it('answers 400 naming the rule', async () => {
    await open();
    const many = await insert({ headers: headerList(PUSH_LIMITS.maxHeaders + 1) });
    expect(many.status).toBe(400);
    expect(many.json.error.message).toContain(`a push task may have at most ${PUSH_LIMITS.maxHeaders}`);
    for (const headers of [
      [{ name: 'X-Euro', value: '€' }],
      [{ name: 'X-Bell', value: 'a\x07' }],
      [{ name: 'Expect', value: '100-continue' }],
      [{ name: 'Upgrade', value: 'h2c' }],
    ]) {
      const r = await insert({ headers });
      expect(r.status, JSON.stringify(headers)).toBe(400);
      expect(r.json.error.message).toContain(headers[0]!.name);
    }
    for (const url of ['/../x', '/%2e%2e/x', '/a/.%2E/%2e./x']) {
      const r = await insert({ url });
      expect(r.status, url).toBe(400);
      expect(r.json.error.message).toContain('climbs above');
    }
    expect(await h!.t.sql(`select name from ${h!.t.schema}.tasks`)).toEqual([]);
  });

  it('drops X-CloudScheduler headers as it drops X-AppEngine ones', async () => {
    await open();
    const r = await insert({
      id: 'forged-cron',
      headers: [
        { name: 'X-CloudScheduler', value: 'true' },
        { name: 'X-CloudScheduler-JobName', value: 'nightly' },
        { name: 'X-Appengine-Cron', value: 'true' },
        { name: 'X-Mine', value: '1' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.json.headers).toEqual([{ name: 'X-Mine', value: '1' }]);
  });

  it('refuses the same in a batch, call by call', async () => {
    await open();
    const call = (id: string, extra: Record<string, unknown>) => ({
      line: `POST ${queuePath('hooks')}/tasks`,
      body: JSON.stringify({ id, payloadBase64: '', ...extra }),
    });
    const parts = parseBatchReply(
      await sendBatch(
        h!.app,
        batchBody([
          call('many', { headers: headerList(PUSH_LIMITS.maxHeaders + 1) }),
          call('latin', { headers: [{ name: 'X-Name', value: 'Zoë' }] }),
          call('keepalive', { headers: [{ name: 'Keep-Alive', value: 'timeout=5' }] }),
          call('climb', { url: '/%2E%2E/admin' }),
        ]),
      ),
    );
    expect(parts.map((p) => p.status)).toEqual([400, 200, 400, 400]);
  });
});
