import { describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { pullQueue } from '../helpers/configs.js';
import { pushQueue } from '../helpers/push-sink.js';
import { usePushFixture } from './push-fixture.js';

describe.each(ENGINES)('push delivery (%s)', (engine) => {
  const push = usePushFixture();

  it('delivers method, url, headers and body byte for byte, then deletes the task and holds its name', async () => {
    const { t, sink } = await push.start(engine, {
      queues: (url) => [pushQueue('hooks', `${url}/base/`), pullQueue('p')],
    });
    const body = Buffer.from([0, 1, 2, 250, 255, 10, 13]);
    const queue = t.service.getQueue('hooks');
    const task = await queue.add({
      name: 'first-task',
      url: '/work?x=1',
      method: 'PUT',
      headers: [
        ['X-Custom', 'a'],
        ['X-Custom', 'b'],
        ['X-AppEngine-QueueName', 'forged'],
        ['X-AppEngine-FailFast', 'true'],
        ['X-AppEngine-Current-Namespace', 'tenant-a'],
        ['User-Agent', 'mine/1'],
      ],
      payload: body,
    });
    await sink.waitFor(1);
    const request = sink.requests[0]!;
    expect(request.method).toBe('PUT');
    expect(request.url).toBe('/base/work?x=1');
    expect(request.body.equals(body)).toBe(true);
    const h = request.headers;
    expect(h['x-custom']).toBe('a, b');
    expect(h['x-appengine-queuename']).toBe('hooks');
    expect(h['x-appengine-failfast']).toBe('true');
    // The App Engine SDK's namespace reaches the handler (deferred restores it from there).
    expect(h['x-appengine-current-namespace']).toBe('tenant-a');
    expect(h['x-appengine-taskname']).toBe('first-task');
    expect(h['x-appengine-taskretrycount']).toBe('0');
    expect(h['x-appengine-taskexecutioncount']).toBe('0');
    expect(h['x-appengine-taskpreviousresponse']).toBeUndefined();
    expect(h['x-appengine-taskretryreason']).toBeUndefined();
    expect(h['x-cloudtasks-queuename']).toBe('hooks');
    expect(h['x-cloudtasks-taskretrycount']).toBe('0');
    expect(h['user-agent']).toBe('mine/1 AppEngine-Google; (+http://code.google.com/appengine)');
    expect(h['content-type']).toBe('application/octet-stream');
    expect(h['content-length']).toBe(String(body.length));
    const eta = task.etaUsec;
    expect(h['x-appengine-tasketa']).toBe(`${Math.floor(eta / 1e6)}.${String(eta % 1e6).padStart(6, '0')}`);
    expect(request.rawHeaders.filter(([k]) => k.toLowerCase() === 'x-appengine-queuename')).toHaveLength(1);
    await expect
      .poll(async () => (await t.sql(`select count(*)::int as n from ${t.schema}.tasks`))[0])
      .toEqual({ n: 0 });
    await expect(queue.add({ name: 'first-task' })).rejects.toMatchObject({ code: 'TOMBSTONED_TASK' });
  });
});

describe.each(ENGINES)('push dispatch switch and reads (%s)', (engine) => {
  const push = usePushFixture();

  it('a service opened with dispatch: false delivers nothing; one that dispatches does; reads show the delivery state', async () => {
    const { t, sink, config } = await push.start(engine, {
      answer: () => ({ status: 500 }),
      queues: (url) => [
        pushQueue(
          'hooks',
          url,
          {},
          { retry: { ageLimitSeconds: null, minBackoffSeconds: 600, maxBackoffSeconds: 600, maxDoublings: 0 } },
        ),
      ],
      open: { open: { dispatch: false } },
    });
    const queue = t.service.getQueue('hooks');
    await queue.add({ name: 'waiting', url: '/w', method: 'DELETE' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sink.requests).toHaveLength(0);
    expect(await queue.getTask('waiting')).toMatchObject({
      retryCount: 0,
      push: { url: '/w', method: 'DELETE' },
      delivery: { executionCount: 0, lastStatus: null, lastError: null, inFlight: false },
    });
    await t.openAnother(config);
    await sink.waitFor(1);
    await expect
      .poll(async () => (await queue.listTasks())[0]?.delivery)
      .toEqual({ executionCount: 1, lastStatus: 500, lastError: 'HTTP 500', inFlight: false });
    const [task] = await queue.listTasks();
    expect(task!.retryCount).toBe(1);
    // The next attempt is the task's ETA: ten minutes away.
    expect(task!.etaUsec / 1000 - Date.now()).toBeGreaterThan(590_000);
  });
});
