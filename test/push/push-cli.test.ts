import { afterEach, describe, expect, it } from 'vitest';
import { cli, jsonLines, openCliDatabase } from '../cli/cli-harness.js';
import { serviceConfig } from '../helpers/configs.js';
import { pushQueue, startSink, type Sink } from '../helpers/push-sink.js';

describe('push queues in the CLI', () => {
  let t: Awaited<ReturnType<typeof openCliDatabase>> | undefined;
  let sink: Sink | undefined;
  afterEach(async () => {
    await t?.close();
    await sink?.close();
  });

  it('add --task-url --method --header adds a push task the service delivers; queues and stats show rate, bucket and in flight', async () => {
    sink = await startSink();
    t = await openCliDatabase(
      serviceConfig([pushQueue('hooks', sink.url, { ratePerSecond: 50, bucketSize: 7, maxConcurrentRequests: 4 })]),
    );
    const added = await cli(
      [
        'add',
        'hooks',
        '{"k":1}',
        '--task-url',
        '/cli',
        '--method',
        'put',
        '--header',
        'Content-Type: application/json',
        '--header',
        'X-Two: 2',
      ],
      t.env,
    );
    expect(added.err).toBe('');
    expect(added.code).toBe(0);
    expect(jsonLines(added.out)[0]).toMatchObject({ queue: 'hooks' });
    await sink.waitFor(1);
    expect(sink.requests[0]).toMatchObject({ method: 'PUT', url: '/cli' });
    expect(sink.requests[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-two': '2' });
    expect(sink.requests[0]!.body.toString()).toBe('{"k":1}');

    const bad = await cli(['add', 'hooks', 'x', '--header', 'no colon'], t.env);
    expect(bad.code).not.toBe(0);

    // A delivery's success is written by the dispatcher's next claim call
    // so the request may still count in flight just after the sink saw it.
    const env = t.env;
    await expect
      .poll(async () => (await cli(['queues'], env)).out.split('\n').find((line) => line.startsWith('hooks')), {
        interval: 100,
      })
      .toMatch(/\s50\/s\s+7\s+[0-7]\s+0$/);
    const stats = await cli(['stats', 'hooks'], t.env);
    expect(stats.out).toMatch(/push rate\s+50\/s/);
    expect(stats.out).toMatch(/bucket size\s+7/);
    expect(stats.out).toMatch(/max concurrent requests\s+4/);
    expect(stats.out).toMatch(/requests in flight\s+0/);
    expect(stats.out).toMatch(/tokens now\s+[0-7]\n/);
    expect(stats.out).toContain(`target url               ${sink.url}`);
  });

  it('add on a push queue without <target-url> takes TASKQUEUE_PUSH_BASE_URL, and names both settings without it', async () => {
    t = await openCliDatabase(
      serviceConfig(
        [pushQueue('hooks', 'http://127.0.0.1:9', {}, {})].map((q) => ({
          ...q,
          push: { ...q.push!, targetUrl: null },
        })),
      ),
    );
    const missing = await cli(['add', 'hooks', 'x'], t.env);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toMatch(/target-url/);
    expect(missing.err).toMatch(/TASKQUEUE_PUSH_BASE_URL/);
    const added = await cli(['add', 'hooks', 'x'], { ...t.env, TASKQUEUE_PUSH_BASE_URL: 'http://127.0.0.1:9' });
    expect(added.err).toBe('');
    expect(added.code).toBe(0);
  });

  it('export and import keep the request of a push task (database path)', async () => {
    t = await openCliDatabase(
      serviceConfig(['from', 'to'].map((name) => pushQueue(name, 'http://127.0.0.1:9', { ratePerSecond: 0 }))),
    );
    await t.service.getQueue('from').add({
      name: 'hook-1',
      method: 'PATCH',
      url: '/h?x=1',
      headers: [['Content-Type', 'application/json']],
      payload: '{"k":1}',
      retryOptions: { taskRetryLimit: 2 },
      dispatchDeadlineSeconds: 30,
      countdownSeconds: 600,
    });
    const exported = await cli(['export', 'from'], t.env);
    expect(exported.code).toBe(0);
    expect(jsonLines(exported.out)[0]!.push).toEqual({
      url: '/h?x=1',
      method: 'PATCH',
      headers: [['Content-Type', 'application/json']],
      retryOptions: { taskRetryLimit: 2, minBackoffSeconds: 0.1, maxBackoffSeconds: 3600, maxDoublings: 16 },
      dispatchDeadlineSeconds: 30,
    });
    const imported = await cli(['import', 'to'], t.env, { stdin: exported.out });
    expect(imported).toMatchObject({ code: 0, err: 'imported 1 task(s) into to\n' });
    expect((await cli(['export', 'to'], t.env)).out).toBe(exported.out);
  });
});
