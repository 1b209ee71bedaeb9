import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAnswer, encodeEnvelope } from '../../src/appengine/envelope.js';
import { decodeMessage, encodeMessage, messageType } from '../../src/appengine/protocol.js';
import { createRpcHandler } from '../../src/appengine/rpc-handler.js';
import { startOpsServer, writeQueueYaml, type OpsServer } from '../ops/ops-harness.js';

const BULK_ADD = messageType('BulkAddRequest');
const BULK_ADD_RESPONSE = messageType('BulkAddResponse');

/** A BulkAdd of `n` unnamed pull tasks, as the SDK encodes one (ETA to the microsecond). */
function bulkAdd(n: number, etaUsec: number): Uint8Array {
  const add_request = Array.from({ length: n }, (_, i) => ({
    queue_name: Buffer.from('pull-q'),
    task_name: Buffer.alloc(0),
    eta_usec: etaUsec,
    mode: 1,
    body: Buffer.from(`task ${i}`),
  }));
  return encodeMessage(BULK_ADD, { add_request });
}

describe('the /rpc_http endpoint with bad input', () => {
  let server: OpsServer;
  let api: string;
  const tasks = async () =>
    (await server.sql<{ n: number }>(`select count(*)::int as n from ${server.schema}.tasks`))[0]!.n;
  const post = (body: Uint8Array, headers: Record<string, string> = {}) =>
    fetch(`${api}/rpc_http`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...headers },
      body,
    });

  beforeAll(async () => {
    server = await startOpsServer({
      settings: { configPath: writeQueueYaml('queue:\n- name: pull-q\n  mode: pull\n'), appEngineApiPort: 0 },
    });
    api = server.running.appEngineApiUrl!;
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers garbage and every truncation of a BulkAdd with a remote_api error or a 4xx, adding nothing', async () => {
    for (let i = 0; i < 200; i++) {
      const response = await post(randomBytes(1 + (i % 64)));
      expect(response.status).toBeLessThan(500);
      if (response.status === 200)
        expect(decodeAnswer(new Uint8Array(await response.arrayBuffer())).kind).not.toBe('response');
      else await response.arrayBuffer();
    }
    const whole = encodeEnvelope({ service: 'taskqueue', method: 'BulkAdd', request: bulkAdd(3, Date.now() * 1000) });
    for (let cut = 0; cut < whole.length; cut++) {
      const response = await post(whole.subarray(0, cut));
      expect(response.status).toBeLessThan(500);
      await response.arrayBuffer();
    }
    expect(await tasks()).toBe(0);
    // A valid envelope whose request is not a BulkAdd: PARSE_ERROR, an ArgumentError in the SDK.
    const response = await post(
      encodeEnvelope({ service: 'taskqueue', method: 'BulkAdd', request: randomBytes(5).fill(0xff) }),
    );
    expect(response.status).toBe(200);
    expect(decodeAnswer(new Uint8Array(await response.arrayBuffer()))).toMatchObject({ kind: 'rpc_error', code: 2 });
    expect(await tasks()).toBe(0);
  });

  it('refuses what is not a call with a 4xx, and unknown calls with CALL_NOT_FOUND', async () => {
    expect((await fetch(`${api}/rpc_http`)).status).toBe(405);
    expect((await fetch(`${api}/elsewhere`, { method: 'POST' })).status).toBe(404);
    const json = await fetch(`${api}/rpc_http`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
    for (const [service, method] of [
      ['memcache', 'Get'],
      ['taskqueue', 'NoSuchMethod'],
      ['taskqueue', 'toString'],
    ] as const) {
      const response = await post(encodeEnvelope({ service, method, request: new Uint8Array(0) }));
      expect(response.status).toBe(200);
      const answer = decodeAnswer(new Uint8Array(await response.arrayBuffer()));
      expect(answer).toMatchObject({ kind: 'rpc_error', code: 1 });
    }
    const handler = createRpcHandler({ host: server.running.service, maxBodyBytes: 1000 });
    const big = await handler(
      new Request('http://x/rpc_http', {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: new Uint8Array(2000),
      }),
    );
    expect(big.status).toBe(413);
    expect(decodeAnswer(new Uint8Array(await big.arrayBuffer()))).toMatchObject({ kind: 'rpc_error', code: 5 });
  });

  it('gives a re-sent BulkAdd of unnamed tasks its first answer instead of adding them twice', async () => {
    const before = await tasks();
    const eta = Date.now() * 1000;
    const envelope = encodeEnvelope({
      service: 'taskqueue',
      method: 'BulkAdd',
      request: bulkAdd(5, eta),
      requestId: 'ticket',
    });
    const names = async (body: Uint8Array) => {
      const response = await post(body, { 'x-google-rpc-service-deadline': '5' });
      const answer = decodeAnswer(new Uint8Array(await response.arrayBuffer()));
      if (answer.kind !== 'response') throw new Error(JSON.stringify(answer));
      const decoded = decodeMessage(BULK_ADD_RESPONSE, answer.response) as {
        taskResult: { chosen_task_name: Buffer }[];
      };
      return decoded.taskResult.map((r) => Buffer.from(r.chosen_task_name).toString());
    };
    const [first, second] = await Promise.all([names(envelope), names(envelope)]);
    expect(second).toEqual(first);
    expect(await names(envelope)).toEqual(first);
    expect(await tasks()).toBe(before + 5);
    // Another call (its ETA differs, as two calls' do) adds its own tasks.
    const other = encodeEnvelope({ service: 'taskqueue', method: 'BulkAdd', request: bulkAdd(5, eta + 1) });
    expect(await names(other)).not.toEqual(first);
    expect(await tasks()).toBe(before + 10);
  });
});
