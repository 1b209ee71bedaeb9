import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue } from '../helpers/configs.js';
import { pushQueue } from '../helpers/push-sink.js';
import { batchBody, parseBatchReply, sendBatch } from './batch-helpers.js';
import { openHarness, queuePath, type Harness } from './harness.js';

/**
 * A push task's body is optional (a GET has none): a REST insert into a push
 * queue may leave payloadBase64 out. A pull queue keeps App Engine's rule
 * ("payloadBase64 must be specified").
 */
describe('tasks.insert without payloadBase64', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function open(): Promise<Harness> {
    // Rate 0: nothing is dispatched, so the tasks stay to be read back.
    return openHarness('postgres', {
      queues: [pushQueue('hooks', 'http://127.0.0.1:1', { ratePerSecond: 0 }), pullQueue('q')],
    });
  }

  it('adds a bodiless push task, alone and in a batch', async () => {
    h = await open();
    const r = await h.call(`${queuePath('hooks')}/tasks`, {
      method: 'POST',
      body: { id: 'ping', url: '/ping', httpMethod: 'GET' },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: 'ping', url: '/ping', httpMethod: 'GET', payloadBase64: '' });
    const post = await h.call(`${queuePath('hooks')}/tasks`, { method: 'POST', body: { id: 'empty-post' } });
    expect(post.status).toBe(200);
    const line = `POST ${queuePath('hooks')}/tasks`;
    const parts = parseBatchReply(
      await sendBatch(h.app, batchBody([{ line, body: JSON.stringify({ id: 'in-batch', httpMethod: 'DELETE' }) }])),
    );
    expect(parts.map((p) => p.status)).toEqual([200]);
    expect((await h.call(`${queuePath('hooks')}/tasks/in-batch`)).json).toMatchObject({
      id: 'in-batch',
      httpMethod: 'DELETE',
    });
  });

  it('still requires it on a pull queue', async () => {
    h = await open();
    const r = await h.call(`${queuePath('q')}/tasks`, { method: 'POST', body: { id: 'x' } });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain('payloadBase64 must be specified');
  });
});
