import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/config/service-settings.js';
import { pullQueue } from '../helpers/configs.js';
import { testPgUrl } from '../helpers/engines.js';
import { pushQueue } from '../helpers/push-sink.js';
import { listen, openHarness, type Harness } from '../http/harness.js';
import { cli, jsonLines } from './cli-harness.js';

/** `taskqueue get QUEUE NAME` prints one live task, on the database and over REST alike. */
describe('taskqueue get', () => {
  let h: Harness;
  let server: Awaited<ReturnType<typeof listen>>;
  let modes: [string, Environment][];

  beforeAll(async () => {
    // Rate 0: the push task stays to be read.
    h = await openHarness('postgres', {
      queues: [pullQueue('jobs'), pushQueue('hooks', 'http://127.0.0.1:1', { ratePerSecond: 0 })],
    });
    server = await listen(h.app);
    modes = [
      ['database', { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: h.t.schema }],
      ['REST', { TASKQUEUE_URL: server.url }],
    ];
    await h.t.service.getQueue('jobs').add({ name: 'report', payload: 'monthly', tag: 'reports' });
    await h.t.service.getQueue('hooks').add({
      name: 'ping',
      url: '/ping?x=1',
      method: 'PUT',
      payload: '{}',
      headers: { 'Content-Type': 'application/json', 'X-Api-Key': 'hunter2' },
      dispatchDeadlineSeconds: 30,
    });
  });
  afterAll(async () => {
    await server.close();
    await h.close();
  });

  it('prints a pull task as a JSON line, without leasing it', async () => {
    for (const [mode, env] of modes) {
      const run = await cli(['get', 'jobs', 'report'], env);
      expect(run.code, `${mode}: ${run.err}`).toBe(0);
      const [task] = jsonLines(run.out);
      expect(task, mode).toMatchObject({
        name: 'report',
        queue: 'jobs',
        tag: 'reports',
        retryCount: 0,
        lastError: null,
      });
      expect(Buffer.from(task!.payloadBase64 as string, 'base64').toString(), mode).toBe('monthly');
      expect(task!.push, mode).toBeUndefined();
    }
    expect((await h.t.service.getQueue('jobs').getTask('report')).retryCount).toBe(0);
  });

  it('prints a push task with its request, a secret header hidden', async () => {
    for (const [mode, env] of modes) {
      const run = await cli(['get', 'hooks', 'ping'], env);
      expect(run.code, `${mode}: ${run.err}`).toBe(0);
      expect(jsonLines(run.out)[0], mode).toMatchObject({
        name: 'ping',
        queue: 'hooks',
        push: {
          url: '/ping?x=1',
          method: 'PUT',
          headers: [
            ['Content-Type', 'application/json'],
            ['X-Api-Key', '(hidden)'],
          ],
          dispatchDeadlineSeconds: 30,
        },
      });
    }
  });

  it('exits 3 for a missing task or queue, 2 for a bad name', async () => {
    for (const [mode, env] of modes) {
      const missing = await cli(['get', 'jobs', 'nobody'], env);
      expect(missing.code, mode).toBe(3);
      expect(missing.out, mode).toBe('');
      expect(missing.err, mode).toMatch(/nobody/);
      expect((await cli(['get', 'nowhere', 'report'], env)).code, mode).toBe(3);
      expect((await cli(['get', 'jobs', 'bad name'], env)).code, mode).toBe(2);
    }
  });
});
