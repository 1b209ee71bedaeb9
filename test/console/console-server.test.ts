import { afterEach, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/console/mount-console.js';
import { csrfTokenFor } from '../../src/console/console-session.js';
import { TASKQUEUE_CONSUMER_SCOPE } from '../../src/auth/scopes.js';
import { ADMIN, READER, browser, csrfOf, openConsoleHarness, type ConsoleHarness } from './console-harness.js';
import { operatorOf } from '../helpers/operator-of.js';

describe('web console, server side', () => {
  let h: ConsoleHarness;
  afterEach(async () => h?.close());

  it('sends a signed-out browser to sign in, with a CSP that allows no inline script', async () => {
    h = await openConsoleHarness('postgres');
    const b = browser(h);
    const start = await b.send('/console');
    expect(start.status).toBe(303);
    expect(start.headers.get('location')).toBe('/console/sign-in');
    const signIn = await b.send('/console/sign-in');
    expect(signIn.status).toBe(200);
    expect(signIn.text.startsWith('<!doctype html>')).toBe(true);
    expect(signIn.text).toContain('name="token"');
    const csp = signIn.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(CONTENT_SECURITY_POLICY);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(signIn.headers.get('x-frame-options')).toBe('DENY');
    // No inline script or style anywhere in the page.
    expect(signIn.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(signIn.text).not.toMatch(/\sstyle=/);
    // The pages and the series refuse without a session; the assets are public.
    expect((await b.send('/console/queues/jobs')).status).toBe(303);
    expect((await b.send('/console/queues/jobs/series.json')).status).toBe(303);
    const js = await b.send(signIn.text.match(/src="(\/console\/assets\/console\.js\?v=[0-9a-f]+)"/)![1]!);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
    expect(js.text).toContain('uplot');
    expect((await b.send('/console/assets/console.css')).text).toContain('.uplot');
  });

  it('signs in with a bearer token into an HttpOnly SameSite=Strict cookie that expires with the token', async () => {
    h = await openConsoleHarness('postgres');
    const b = browser(h);
    const bad = await b.send('/console/sign-in', { form: { token: 'not-a-token' } });
    expect(bad.status).toBe(401);
    expect(bad.text).toContain('Invalid Credentials');
    expect(b.cookie).toBeNull();

    const token = await h.issuer!.mint(ADMIN);
    const response = await h.app.request('http://localhost/console/sign-in', {
      method: 'POST',
      headers: { host: 'localhost', 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-proto': 'https' },
      body: new URLSearchParams({ token: `Bearer ${token}` }).toString(),
    });
    expect(response.status).toBe(303);
    const setCookie = response.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^taskqueue_console=/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/console');
    expect(setCookie).toContain('Secure');
    const maxAge = Number(/Max-Age=(\d+)/.exec(setCookie)?.[1]);
    // Test tokens live 10 minutes.
    expect(maxAge).toBeGreaterThan(590);
    expect(maxAge).toBeLessThanOrEqual(600);

    // Over plain http the cookie is not Secure (it could not be sent back).
    const { page } = await b.signIn(ADMIN);
    expect(page.status).toBe(303);
    expect(b.cookie).toMatch(/^taskqueue_console=/);
    const home = await b.send('/console');
    expect(home.status).toBe(200);
    expect(home.text).toContain(ADMIN);
    for (const queue of ['default', 'jobs', 'emails', 'reports']) expect(home.text).toContain(`data-queue="${queue}"`);

    // Sign-in from another site is refused before the token is looked at.
    const forged = await b.send('/console/sign-in', { form: { token }, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(forged.status).toBe(403);

    // Signing out clears the cookie.
    const out = await b.send('/console/sign-out', { form: { _csrf: csrfOf(home) } });
    expect(out.status).toBe(303);
    expect(b.cookie).toBeNull();
    expect((await b.send('/console')).status).toBe(303);
  });

  it('shows each reader only the queues REST lets them read, without action buttons, and refuses their actions', async () => {
    h = await openConsoleHarness('postgres');
    await h.t.service.getQueue('jobs').add({ name: 'job-1', payload: 'work' });
    const reader = browser(h);
    await reader.signIn(READER);
    const home = await reader.send('/console');
    expect(home.text).toContain(READER);
    expect(home.text).toContain('data-queue="jobs"');
    expect(home.text).not.toContain('data-queue="emails"');
    expect((await reader.send('/console/queues-table')).text).not.toContain('emails');
    expect((await reader.send('/console/queues/emails')).status).toBe(404);
    expect((await reader.send('/console/queues/emails/series.json')).status).toBe(404);

    const jobs = await reader.send('/console/queues/jobs');
    expect(jobs.status).toBe(200);
    expect(jobs.text).toContain('job-1');
    expect(jobs.text).not.toContain('/console/queues/jobs/pause');
    expect(jobs.text).not.toContain('/console/queues/jobs/purge');
    expect(jobs.text).not.toContain('>Delete<');

    // A forged action with the reader's own valid CSRF token: refused by the server.
    const refused = await reader.send('/console/queues/jobs/purge', { form: { _csrf: csrfOf(jobs), confirm: 'jobs' } });
    expect(refused.status).toBe(403);
    expect(await h.t.service.getQueue('jobs').listTasks()).toHaveLength(1);
    expect(await h.audit.list({ limit: 10 })).toEqual([]);

    // A token that may read nothing does not sign in; a consumer-scope admin token is no administrator.
    const nobody = browser(h);
    const { page } = await nobody.signIn('nobody@example.com');
    expect(page.status).toBe(401);
    expect(page.text).toContain('may not read any queue');
    const consumer = browser(h);
    await consumer.signIn(ADMIN, [TASKQUEUE_CONSUMER_SCOPE]);
    const asConsumer = await consumer.send('/console/queues/jobs');
    expect(asConsumer.status).toBe(200);
    expect(asConsumer.text).not.toContain('/console/queues/jobs/pause');
  });

  it('pauses, resumes, purges after confirmation, deletes, releases and redrives, recording each in the audit log', async () => {
    h = await openConsoleHarness('postgres');
    const jobs = h.t.service.getQueue('jobs');
    await jobs.add([{ name: 'a', tag: 'red' }, { name: 'b', tag: 'blue' }, { name: 'c' }]);
    const b = browser(h);
    await b.signIn(ADMIN);
    const page = await b.send('/console/queues/jobs');
    const csrf = csrfOf(page);

    // Without the CSRF token, or with another session's, or cross-site: refused, nothing done.
    expect((await b.send('/console/queues/jobs/pause', { form: {} })).status).toBe(403);
    expect(
      (await b.send('/console/queues/jobs/pause', { form: { _csrf: csrfTokenFor('another-token') } })).status,
    ).toBe(403);
    expect(
      (
        await b.send('/console/queues/jobs/pause', {
          form: { _csrf: csrf },
          headers: { 'sec-fetch-site': 'cross-site' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await b.send('/console/queues/jobs/pause', {
          form: { _csrf: csrf },
          headers: { origin: 'https://evil.example' },
        })
      ).status,
    ).toBe(403);
    expect(await jobs.isPaused()).toBe(false);

    const paused = await b.send('/console/queues/jobs/pause', { form: { _csrf: csrf } });
    expect(paused.status).toBe(303);
    expect(paused.headers.get('location')).toBe('/console/queues/jobs?done=pause&n=0');
    expect(await jobs.isPaused()).toBe(true);
    const after = await b.send('/console/queues/jobs?done=pause&n=0');
    expect(after.text).toContain('Paused: leases return no tasks');
    expect(after.text).toContain('/console/queues/jobs/resume');
    await b.send('/console/queues/jobs/resume', { form: { _csrf: csrf } });
    expect(await jobs.isPaused()).toBe(false);

    // Release a lease, delete a task.
    const [leased] = await jobs.leaseTasks({ lease: 600, maxTasks: 1 });
    expect((await b.send('/console/queues/jobs/release', { form: { _csrf: csrf, task: leased!.name } })).status).toBe(
      303,
    );
    expect((await operatorOf(jobs).browseTasks({ state: 'leased' })).length).toBe(0);
    expect((await b.send('/console/queues/jobs/delete', { form: { _csrf: csrf, task: 'b' } })).status).toBe(303);
    expect((await jobs.listTasks()).map((task) => task.name).sort()).toEqual(['a', 'c']);
    const missing = await b.send('/console/queues/jobs/release', { form: { _csrf: csrf, task: 'b' } });
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('has been deleted');

    // Purge needs the queue's name typed.
    const unconfirmed = await b.send('/console/queues/jobs/purge', { form: { _csrf: csrf, confirm: 'job' } });
    expect(unconfirmed.status).toBe(400);
    expect(await jobs.listTasks()).toHaveLength(2);
    const purged = await b.send('/console/queues/jobs/purge', { form: { _csrf: csrf, confirm: 'jobs' } });
    expect(purged.headers.get('location')).toBe('/console/queues/jobs?done=purge&n=2');
    expect(await jobs.listTasks()).toEqual([]);

    // A dead letter (retry limit 2), redriven by name.
    await jobs.add({ name: 'doomed', payload: 'x' });
    for (let i = 0; i < 3; i++) {
      await jobs.leaseTasks({ lease: 60, maxTasks: 1 });
      await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '1 second'`);
    }
    expect((await operatorOf(jobs).listDeadLetters({ limit: 10 })).map((d) => d.name)).toEqual(['doomed']);
    const withDead = await b.send('/console/queues/jobs/dead-letters');
    expect(withDead.text).toContain('data-dead-letter="doomed"');
    expect(withDead.text).toContain('retry limit: leased 2 times');
    expect((await b.send('/console/queues/jobs')).text).toContain('Dead letters (1)');
    const redriven = await b.send('/console/queues/jobs/redrive', {
      form: { _csrf: csrf, task: 'doomed', tab: 'dead-letters' },
    });
    expect(redriven.headers.get('location')).toBe('/console/queues/jobs/dead-letters?done=redrive&n=1');
    expect((await jobs.listTasks()).map((task) => task.name)).toEqual(['doomed']);

    const entries = await h.audit.list({ limit: 20 });
    expect(entries.map((e) => [e.actor, e.action, e.queue, e.target, e.count])).toEqual([
      [ADMIN, 'redrive', 'jobs', 'doomed', 1],
      [ADMIN, 'purge', 'jobs', null, 2],
      [ADMIN, 'delete_task', 'jobs', 'b', 1],
      [ADMIN, 'release_lease', 'jobs', leased!.name, 1],
      [ADMIN, 'resume', 'jobs', null, 0],
      [ADMIN, 'pause', 'jobs', null, 0],
    ]);
    const audit = await b.send('/console/audit');
    expect(audit.text).toContain('release lease');
    expect(audit.text.match(/data-action="/g)).toHaveLength(6);
  });

  it('escapes payloads and tags, shows binary as hex, and filters tasks by tag and state', async () => {
    h = await openConsoleHarness('postgres');
    const jobs = h.t.service.getQueue('jobs');
    await jobs.add([
      { name: 'evil', payload: '<script>alert(1)</script>', tag: '"><img src=x onerror=alert(2)>' },
      { name: 'bin', payload: new Uint8Array([0, 1, 2, 255]), tag: 'red' },
      { name: 'later', payload: 'soon', tag: 'red', countdownSeconds: 3600 },
    ]);
    const b = browser(h);
    await b.signIn(ADMIN);
    const page = await b.send('/console/queues/jobs');
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('00 01 02 ff');

    const red = await b.send('/console/queues/jobs?tag=red');
    expect(red.text).toContain('data-task="bin"');
    expect(red.text).toContain('data-task="later"');
    expect(red.text).not.toContain('data-task="evil"');
    const delayed = await b.send('/console/queues/jobs?tag=red&state=delayed');
    expect(delayed.text).toContain('data-task="later"');
    expect(delayed.text).not.toContain('data-task="bin"');
  });

  it('takes the Authorization header a reverse proxy sends, on every request, without a cookie', async () => {
    h = await openConsoleHarness('postgres');
    const token = await h.issuer!.mint(ADMIN);
    const headers = { host: 'localhost', authorization: `Bearer ${token}` };
    const home = await h.app.request('http://localhost/console', { headers });
    expect(home.status).toBe(200);
    const text = await home.text();
    expect(text).toContain(ADMIN);
    expect(text).not.toContain('Sign out');
    const queuePage = await (await h.app.request('http://localhost/console/queues/jobs', { headers })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(queuePage)?.[1] ?? '';
    const paused = await h.app.request('http://localhost/console/queues/jobs/pause', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(paused.status).toBe(303);
    expect(await h.t.service.getQueue('jobs').isPaused()).toBe(true);
    const expired = await h.app.request('http://localhost/console', { headers: { authorization: 'Bearer nonsense' } });
    expect(expired.status).toBe(303);
  });

  it('with access control off, lets everyone act, recorded as anonymous', async () => {
    h = await openConsoleHarness('postgres', { auth: false });
    const b = browser(h);
    const home = await b.send('/console');
    expect(home.status).toBe(200);
    expect(home.text).toContain('access control is off');
    const page = await b.send('/console/queues/emails');
    expect((await b.send('/console/queues/emails/pause', { form: { _csrf: csrfOf(page) } })).status).toBe(303);
    expect((await h.audit.list({ limit: 1 }))[0]).toMatchObject({
      actor: 'anonymous',
      action: 'pause',
      queue: 'emails',
    });
  });

  it('charts depth from samples of the overview, and leases per minute from the lease history', async () => {
    h = await openConsoleHarness('postgres');
    const jobs = h.t.service.getQueue('jobs');
    await jobs.add([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }]);
    await jobs.leaseTasks({ lease: 600, maxTasks: 1 });
    // Leases from before this process started (history is in the database): 2 tasks 30 minutes ago.
    await jobs.leaseTasks({ lease: 600, maxTasks: 2 });
    await h.t.sql(
      `update ${h.t.schema}.lease_history set leased_at = leased_at - interval '30 minutes' where task_count = 2`,
    );
    await h.console.sampler.sample();
    const b = browser(h);
    await b.signIn(READER);
    const series = await b.send('/console/queues/jobs/series.json');
    expect(series.status).toBe(200);
    const { depth, leases } = JSON.parse(series.text);
    expect(depth.available.at(-1)).toBe(1);
    expect(depth.leased.at(-1)).toBe(3);
    expect(depth.at.length).toBe(depth.available.length);
    expect(leases.at).toHaveLength(60);
    expect(leases.at[59] - leases.at[0]).toBe(59 * 60);
    expect(leases.tasks.reduce((a: number, n: number) => a + n, 0)).toBe(3);
    // The lease just made is in the minute now running (or the one before, at a minute's turn).
    expect(leases.tasks.at(-1) + leases.tasks.at(-2)).toBe(1);
    expect(leases.tasks.filter((n: number) => n === 2)).toHaveLength(1);
  });

  it('pages through tasks, redrives all dead letters, and ends a session whose token stopped working', async () => {
    h = await openConsoleHarness('postgres');
    const emails = h.t.service.getQueue('emails');
    await emails.add(
      Array.from({ length: 60 }, (_, i) => ({ name: `m-${String(i).padStart(2, '0')}`, tag: i % 2 ? 'odd' : 'even' })),
    );
    const b = browser(h);
    await b.signIn(ADMIN);
    const first = await b.send('/console/queues/emails');
    expect(first.text.match(/data-task="/g)).toHaveLength(50);
    const next = /href="(\/console\/queues\/emails\?after=[^"]+)"/.exec(first.text)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toBeDefined();
    const second = await b.send(next!);
    expect(second.text.match(/data-task="/g)).toHaveLength(10);
    expect(second.text).not.toContain('Next page');
    // Filtered by tag: half of them.
    const odd = await b.send('/console/queues/emails?tag=odd');
    expect(odd.text.match(/data-task="/g)).toHaveLength(30);

    // Two dead letters in reports (retry limit 1), redriven together.
    const reports = h.t.service.getQueue('reports');
    await reports.add([{ name: 'r1' }, { name: 'r2' }]);
    for (let i = 0; i < 2; i++) {
      await reports.leaseTasks({ lease: 60, maxTasks: 2 });
      await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '1 second' where name in ('r1', 'r2')`);
    }
    expect(await operatorOf(reports).listDeadLetters({ limit: 10 })).toHaveLength(2);
    const page = await b.send('/console/queues/reports');
    const all = await b.send('/console/queues/reports/redrive', { form: { _csrf: csrfOf(page) } });
    expect(all.headers.get('location')).toBe('/console/queues/reports?done=redrive&n=2');
    expect(await operatorOf(reports).listDeadLetters({ limit: 10 })).toEqual([]);

    // A cookie whose token no longer verifies: back to sign-in, saying why, the cookie dropped.
    const stale = await h.app.request('http://localhost/console', {
      headers: { cookie: 'taskqueue_console=expired.or.revoked' },
    });
    expect(stale.status).toBe(303);
    expect(stale.headers.get('location')).toBe('/console/sign-in?ended=1');
    expect(stale.headers.get('set-cookie')).toMatch(/taskqueue_console=;.*Max-Age=0/);
    const signIn = await (await h.app.request('http://localhost/console/sign-in?ended=1')).text();
    expect(signIn).toContain('Your session ended');
  });
});
