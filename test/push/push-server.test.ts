import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpsServer, writeQueueYaml, type OpsServer } from '../ops/ops-harness.js';
import { startSink, type Sink } from '../helpers/push-sink.js';

describe('push queues in the server', () => {
  let server: OpsServer | undefined;
  let sink: Sink | undefined;
  afterEach(async () => {
    await server?.close();
    await sink?.close();
    server = undefined;
    sink = undefined;
  });

  it('delivers, serves the JWKS the token verifies with, counts attempts in /metrics, and logs one line per failed attempt', async () => {
    sink = await startSink((_r, index) => ({ status: index === 0 ? 500 : 204 }));
    const yaml = `queue:\n- name: hooks\n  rate: 100/s\n  bucket_size: 10\n  target_url: ${sink.url}/base\n`;
    server = await startOpsServer({ settings: { configPath: writeQueueYaml(yaml) } });
    const insert = await fetch(`${server.url}${server.path('hooks')}/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'srv-1',
        payloadBase64: Buffer.from('secret-payload').toString('base64'),
        url: '/go',
      }),
    });
    expect(insert.status).toBe(200);
    await sink.waitFor(2);
    const token = sink.requests[1]!.headers.authorization!.slice('Bearer '.length);
    const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(token, jwks, {
      issuer: 'urn:taskqueue:local',
      audience: `${sink.url}/base/go`,
    });
    expect(payload.email).toBe('taskqueue@local');

    await expect.poll(async () => (await server!.sql(`select name from ${server!.schema}.tasks`)).length).toBe(0);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('taskqueue_push_dispatches_total{queue="hooks",outcome="retry"} 1');
    expect(metrics).toContain('taskqueue_push_dispatches_total{queue="hooks",outcome="success"} 1');
    expect(metrics).toMatch(/taskqueue_push_delivery_seconds_count\{queue="hooks"\} 2/);
    expect(metrics).toContain('taskqueue_push_queue_in_flight{queue="hooks"} 0');
    expect(metrics).toMatch(/taskqueue_push_queue_tokens\{queue="hooks"\} \d/);

    const failed = server.lines.filter((line) => line.msg === 'push attempt failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ queue: 'hooks', task: 'srv-1', status: 500, attempt: 1 });
    expect(typeof failed[0]!.nextTryInSeconds).toBe('number');
    const all = server.raw.join('');
    expect(all).not.toContain('secret-payload');
    expect(all).not.toContain(Buffer.from('secret-payload').toString('base64'));
    expect(all).not.toContain(token);
  });
});
