import { afterEach, describe, expect, it } from 'vitest';
import { startSink, type Sink } from '../helpers/push-sink.js';
import { startOpsServer, writeQueueYaml, type OpsServer } from './ops-harness.js';

/**
 * What an operator sees of a push queue that keeps failing, from outside
 * the server: /metrics (attempts by outcome, delivery time, requests in
 * flight of this process and of the queue, tokens) and one warning per
 * failed attempt saying queue, task, status, attempt and next try (or the
 * dead letters), never the body nor any Authorization header.
 */
describe('push delivery observed by an operator', () => {
  let server: OpsServer | undefined;
  let sink: Sink | undefined;
  afterEach(async () => {
    await server?.close();
    await sink?.close();
    server = undefined;
    sink = undefined;
  });

  it('counts a retry and a dead letter, and logs each failed attempt without the body or the Authorization header', async () => {
    sink = await startSink(() => ({ status: 502 }));
    const yaml = `queue:
- name: flaky
  mode: push
  rate: 100/s
  bucket_size: 5
  max_concurrent_requests: 2
  target_url: ${sink.url}
  retry_parameters:
    task_retry_limit: 1
    min_backoff_seconds: 0.1
    max_backoff_seconds: 0.1
`;
    server = await startOpsServer({ settings: { configPath: writeQueueYaml(yaml) } });
    const body = Buffer.from('body-that-must-not-be-logged');
    const insert = await fetch(`${server.url}${server.path('flaky')}/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'obs-1',
        payloadBase64: body.toString('base64'),
        url: '/hook',
        headers: [{ name: 'Authorization', value: 'Basic task-own-credential' }],
      }),
    });
    expect(insert.status).toBe(200);
    await sink.waitFor(2);
    expect(sink.requests[0]!.headers.authorization).toBe('Basic task-own-credential');
    await expect
      .poll(async () => (await server!.sql(`select name from ${server!.schema}.task_dead_letters`)).length)
      .toBe(1);
    await expect
      .poll(() => server!.lines.filter((line) => /^push attempt failed/.test(String(line.msg))).length)
      .toBe(2);

    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('taskqueue_push_dispatches_total{queue="flaky",outcome="retry"} 1');
    expect(metrics).toContain('taskqueue_push_dispatches_total{queue="flaky",outcome="dead_letter"} 1');
    expect(metrics).not.toContain('taskqueue_push_dispatches_total{queue="flaky",outcome="success"}');
    expect(metrics).toMatch(/taskqueue_push_delivery_seconds_bucket\{le="\+Inf",queue="flaky"\} 2/);
    expect(metrics).toMatch(/taskqueue_push_delivery_seconds_count\{queue="flaky"\} 2/);
    expect(metrics).toContain('taskqueue_push_in_flight{queue="flaky"} 0');
    expect(metrics).toContain('taskqueue_push_queue_in_flight{queue="flaky"} 0');
    const tokens = /taskqueue_push_queue_tokens\{queue="flaky"\} ([\d.]+)/.exec(metrics);
    expect(tokens).not.toBeNull();
    expect(Number(tokens![1])).toBeGreaterThanOrEqual(0);
    expect(Number(tokens![1])).toBeLessThanOrEqual(5);

    // The admin stats route (taskqueue stats --url) carries the push figures, and `fields` may select them.
    const stats = await fetch(`${server.url}/taskqueue/admin/v1/taskqueues/flaky?fields=name,push`);
    expect(stats.status).toBe(200);
    expect(await stats.json()).toMatchObject({
      name: 'flaky',
      push: {
        ratePerSecond: 100,
        bucketSize: 5,
        maxConcurrentRequests: 2,
        targetUrl: sink.url,
        inFlight: 0,
        heldUntilUsec: null,
      },
    });

    const failed = server.lines.filter((line) => /^push attempt failed/.test(String(line.msg)));
    expect(failed[0]).toMatchObject({ queue: 'flaky', task: 'obs-1', status: 502, attempt: 1, error: 'HTTP 502' });
    expect(failed[0]!.nextTryInSeconds).toBeCloseTo(0.1);
    expect(failed[1]).toMatchObject({ queue: 'flaky', task: 'obs-1', status: 502, attempt: 2, deadLettered: true });
    const logs = server.raw.join('');
    expect(logs).not.toContain('task-own-credential');
    expect(logs).not.toContain('body-that-must-not-be-logged');
    expect(logs).not.toContain(body.toString('base64'));
    expect(logs).not.toMatch(/Bearer ey/);
  });
});
