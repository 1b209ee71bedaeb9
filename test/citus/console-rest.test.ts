import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { browser, csrfOf, openConsoleHarness, type ConsoleHarness } from '../console/console-harness.js';
import { listen, openHarness, type Harness, type Loose } from '../http/harness.js';
import { pullQueue } from '../helpers/configs.js';
import { workerPortOf } from './cluster.js';
import { pushQueue, startSink, type Sink } from '../helpers/push-sink.js';

/** googleapis@29.0.0, as test/http/official-client.test.ts uses it. */
const { google } = createRequire(import.meta.url)('googleapis') as { google: Loose };

/** The console's pages and REST v1beta2 through Google's Node client, on the Citus coordinator. */
describe('console and REST on Citus', () => {
  let h: ConsoleHarness | undefined;
  let rest: Harness | undefined;
  let sink: Sink | undefined;
  afterEach(async () => {
    await h?.close();
    await rest?.close();
    await sink?.close();
    h = rest = sink = undefined;
  });

  it('serves the queue list, a queue, a task, dead letters and the audit log from queues on both workers', async () => {
    sink = await startSink(() => ({ status: 502 }));
    const retry = { ageLimitSeconds: null, minBackoffSeconds: 600, maxBackoffSeconds: 600, maxDoublings: 0 };
    h = await openConsoleHarness('postgres', {
      auth: false,
      queues: [
        pullQueue('jobs', { maxLeases: 1 }),
        pullQueue('emails'),
        pullQueue('reports'),
        pushQueue('hooks', sink.url, {}, { retry }),
      ],
    });
    const { t } = h;
    const ids = ['jobs', 'emails', 'reports', 'hooks'].map((name) => t.service.getQueue(name).id);
    expect(new Set(await Promise.all(ids.map((id) => workerPortOf(t.schema, id)))).size).toBe(2);
    const jobs = t.service.getQueue('jobs');
    await jobs.add([{ name: 'mail-1', payload: 'hello from citus', tag: 'billing' }, { name: 'doomed' }]);
    await t.service.getQueue('emails').add([{ name: 'e-1' }, { name: 'e-2' }]);
    await t.service.getQueue('hooks').add({ name: 'hook-1', url: '/h' });
    await sink.waitFor(1);
    expect((await jobs.leaseTasks({ lease: 60, maxTasks: 1, tag: 'billing' })).map((x) => x.name)).toEqual(['mail-1']);
    expect((await jobs.leaseTasks({ lease: 60, maxTasks: 1 })).map((x) => x.name)).toEqual(['doomed']);
    // Past its lease, `doomed` is at its retry limit: the next lease drops it to the dead letters.
    await t.sql(
      `update ${t.schema}.tasks set eta = now() - interval '1 second' where queue_id = $1 and name = 'doomed'`,
      [jobs.id],
    );
    expect(await jobs.leaseTasks({ lease: 60, maxTasks: 5 })).toEqual([]);

    const overview = Object.fromEntries((await t.service.overview()).map((o) => [o.name, o]));
    expect(Object.keys(overview)).toEqual(['default', 'jobs', 'emails', 'reports', 'hooks']);
    expect(overview.jobs).toMatchObject({ leasedTasks: 1, availableTasks: 0, deadLetters: 1, leasedLastMinute: 2 });
    expect(overview.emails).toMatchObject({ availableTasks: 2, leasedTasks: 0 });
    await expect
      .poll(async () => (await t.service.overview(['hooks']))[0])
      .toMatchObject({ leasedTasks: 1, push: { inFlight: 0 } });
    // The triage data beside it: a push queue's failing delivery and the dead letter arrived.
    await expect
      .poll(async () => await t.service.attention(['hooks', 'jobs'], { deadLetterSeconds: 3600 }))
      .toEqual([
        expect.objectContaining({ name: 'jobs', failingDeliveries: 0, deadLettersArrived: 1 }),
        expect.objectContaining({ name: 'hooks', failingDeliveries: 1, failingStatus: 502, deadLettersArrived: 0 }),
      ]);
    await h.console.sampler.sample();

    const b = browser(h);
    const home = await b.send('/console');
    expect(home.status).toBe(200);
    for (const name of ['jobs', 'emails', 'reports', 'hooks']) expect(home.text).toContain(name);
    const table = await b.send('/console/queues-table');
    expect(table.status).toBe(200);
    expect(table.text).toContain('dead letters arriving');
    const queue = await b.send('/console/queues/jobs');
    expect(queue.status).toBe(200);
    expect(queue.text).toContain('mail-1');
    expect(queue.text).toContain('Dead letters (1)');
    const task = await b.send('/console/queues/jobs/tasks/mail-1');
    expect(task.status).toBe(200);
    expect(task.text).toContain('hello from citus');
    const dead = await b.send('/console/queues/jobs/dead-letters');
    expect(dead.status).toBe(200);
    expect(dead.text).toContain('data-dead-letter="doomed"');
    expect((await b.send('/console/queues/jobs/dead-letters/doomed')).status).toBe(200);
    expect((await b.send('/console/queues/jobs/series.json')).status).toBe(200);
    const emails = await b.send('/console/queues/emails');
    expect((await b.send('/console/queues/emails/pause', { form: { _csrf: csrfOf(emails) } })).status).toBe(303);
    const audit = await b.send('/console/audit');
    expect(audit.status).toBe(200);
    expect(audit.text).toContain('data-action="pause"');
    expect(audit.text).toContain('emails');
  });

  it('inserts, lists, leases and deletes through googleapis@29.0.0', async () => {
    rest = await openHarness('postgres', { queues: [pullQueue('q'), pullQueue('other')] });
    const server = await listen(rest.app);
    try {
      const auth = new google.auth.OAuth2();
      auth.setCredentials({ access_token: 'dev-token' });
      const tq = google.taskqueue({ version: 'v1beta2', auth });
      const o = { rootUrl: `${server.url}/` };
      const project = 's~local';
      for (const taskqueue of ['q', 'other']) {
        const payloadBase64 = Buffer.from(`for ${taskqueue}`).toString('base64');
        const inserted = await tq.tasks.insert({ project, taskqueue, resource: { payloadBase64, tag: 't' } }, o);
        expect(inserted.data).toMatchObject({
          kind: 'taskqueues#task',
          queueName: `projects/local/taskqueues/${taskqueue}`,
        });
        await tq.tasks.insert({ project, taskqueue, resource: { id: `${taskqueue}-named`, payloadBase64 } }, o);
        const listed = await tq.tasks.list({ project, taskqueue }, o);
        expect(listed.data.items.map((x: Loose) => x.id).sort()).toEqual(
          [inserted.data.id, `${taskqueue}-named`].sort(),
        );
        const leased = await tq.tasks.lease({ project, taskqueue, numTasks: 10, leaseSecs: 60 }, o);
        expect(leased.data.items).toHaveLength(2);
        expect(leased.data.items.map((x: Loose) => Buffer.from(x.payloadBase64, 'base64').toString())).toEqual([
          `for ${taskqueue}`,
          `for ${taskqueue}`,
        ]);
        for (const item of leased.data.items) {
          expect((await tq.tasks.delete({ project, taskqueue, task: item.id }, o)).status).toBe(200);
        }
        expect((await tq.tasks.list({ project, taskqueue }, o)).data.items ?? []).toEqual([]);
        const stats = await tq.taskqueues.get({ project, taskqueue, getStats: true }, o);
        expect(stats.data).toMatchObject({ id: taskqueue, stats: { totalTasks: 0 } });
      }
    } finally {
      await server.close();
    }
  });
});
