import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, browser, csrfOf, openConsoleHarness, type ConsoleHarness } from './console-harness.js';

/** What the admin routes and the console check before they act (each once answered 200 and acted). */
describe('operator front-ends refuse what they cannot mean, before anything happens', () => {
  let h: ConsoleHarness;
  let token: string;
  beforeAll(async () => {
    h = await openConsoleHarness('postgres');
    token = await h.issuer!.mint(ADMIN);
  });
  afterAll(async () => h.close());

  const admin = (path: string, init: { method?: string; body?: string; type?: string } = {}) =>
    h.app.request(`http://localhost/taskqueue/admin/v1/taskqueues/jobs${path}`, {
      method: init.method ?? 'POST',
      headers: { authorization: `Bearer ${token}`, ...(init.type === undefined ? {} : { 'content-type': init.type }) },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
  const auditCount = async () => (await h.audit.list({ limit: 100 })).length;

  it('admin routes check fields as REST does: a bad selection is 400 and the queue is not paused', async () => {
    const before = await auditCount();
    const bogus = await admin('/pause?fields=bogus');
    expect(bogus.status).toBe(400);
    expect(await h.t.service.getQueue('jobs').isPaused()).toBe(false);
    expect(await auditCount()).toBe(before);
    const selected = await admin('/resume?fields=paused');
    expect(selected.status).toBe(200);
    expect(await selected.json()).toEqual({ paused: false });
    expect((await admin('', { method: 'GET' })).status).toBe(200);
    expect((await admin('?fields=nope', { method: 'GET' })).status).toBe(400);
    expect((await admin('/tasks/export?fields=name', { method: 'GET' })).status).toBe(400);
  });

  it('the admin import takes JSON lines only (415 otherwise), and imports nothing then', async () => {
    const line = JSON.stringify({ name: 'imp', etaUsec: 1_700_000_000_000_000, tag: null, payloadBase64: '' });
    for (const type of [undefined, 'text/plain', 'multipart/form-data; boundary=x']) {
      const response = await admin('/tasks/import', { body: line, ...(type === undefined ? {} : { type }) });
      expect(response.status, String(type)).toBe(415);
    }
    await expect(h.t.service.getQueue('jobs').getTask('imp')).rejects.toMatchObject({ code: 'UNKNOWN_TASK' });
    expect((await admin('/tasks/import', { body: line, type: 'application/x-ndjson; charset=utf-8' })).status).toBe(
      200,
    );
  });

  it('the console refuses strings that can never be task names, says so of a release of a task not leased, and has /console/', async () => {
    await h.t.service.getQueue('jobs').add({ name: 'idle' });
    const b = browser(h);
    await b.signIn(ADMIN);
    const csrf = csrfOf(await b.send('/console/queues/jobs'));
    const before = await auditCount();
    for (const task of ['<script>alert(1)</script>', 'x'.repeat(600)]) {
      for (const action of ['delete', 'redrive', 'release']) {
        const page = await b.send(`/console/queues/jobs/${action}`, { form: { _csrf: csrf, task } });
        expect(page.status, `${action} ${task.slice(0, 10)}`).toBe(400);
        expect(page.text).not.toContain('<script>alert');
      }
    }
    expect(await auditCount()).toBe(before);

    const release = await b.send('/console/queues/jobs/release', { form: { _csrf: csrf, task: 'idle' } });
    expect(release.headers.get('location')).toBe('/console/queues/jobs?done=release&n=0');
    expect((await b.send('/console/queues/jobs?done=release&n=0')).text).toContain('The task was not leased');
    expect((await h.audit.list({ limit: 1 }))[0]).toMatchObject({ action: 'release_lease', target: 'idle', count: 0 });

    const slash = await b.send('/console/');
    expect(slash.status).toBe(301);
    expect(slash.headers.get('location')).toBe('/console');
  });
});
