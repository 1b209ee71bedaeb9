import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, browser, csrfOf, openConsoleHarness, type ConsoleHarness } from './console-harness.js';

describe('the console shows attempts and runs tasks now (postgres)', () => {
  let h: ConsoleHarness;
  beforeEach(async () => {
    h = await openConsoleHarness('postgres');
  });
  afterEach(async () => h?.close());

  it('a task page lists its attempts, escaped, flags a long lease, and "retry now" makes it due, audited', async () => {
    const jobs = h.t.service.getQueue('jobs');
    await jobs.add({ name: 'mail-1' });
    const [first] = await jobs.leaseTasks({ lease: 60, maxTasks: 1 });
    await jobs.failTask(first!, new Error('smtp said <no>'));
    await h.t.sql(`update ${h.t.schema}.tasks set eta = now()`);
    await jobs.leaseTasks({ lease: 7200, maxTasks: 1 }); // a long lease, of a worker that may be gone
    const b = browser(h);
    await b.signIn(ADMIN);
    const page = await b.send('/console/queues/jobs/tasks/mail-1');
    expect(page.text).toContain('id="attempts-table"');
    expect(page.text).toContain('data-attempt="1"');
    expect(page.text).toContain('smtp said &lt;no&gt;');
    expect(page.text).toContain('id="long-lease"');
    expect(page.text).toContain('Retry now');

    const run = await b.send('/console/queues/jobs/run', { form: { _csrf: csrfOf(page), task: 'mail-1' } });
    expect(run.headers.get('location')).toBe('/console/queues/jobs?done=run&n=1');
    expect((await b.send('/console/queues/jobs?done=run&n=1')).text).toContain('Made the task due now.');
    expect((await h.audit.list({ limit: 1 }))[0]).toMatchObject({ action: 'run_now', target: 'mail-1', count: 1 });
    expect(await h.t.sql(`select name from ${h.t.schema}.tasks where eta <= now()`)).toEqual([{ name: 'mail-1' }]);
  });

  it('ranks a queue holding an hour-long lease first among its peers, flagged as a stuck lease', async () => {
    await h.t.service.getQueue('emails').add({ name: 'short' });
    await h.t.service.getQueue('emails').leaseTasks({ lease: 60, maxTasks: 1 });
    await h.t.service.getQueue('reports').add({ name: 'held' });
    await h.t.service.getQueue('reports').leaseTasks({ lease: 3600, maxTasks: 1 }); // its worker died
    const b = browser(h);
    await b.signIn(ADMIN);
    const page = (await b.send('/console')).text;
    const queues = [...page.matchAll(/data-queue="([^"]+)"/g)].map((match) => match[1]);
    expect(queues[0]).toBe('reports');
    expect(page).toMatch(/stuck leases[^]*?1 lease with more than 15 min still to run/);
    expect(page).toMatch(/data-queue="emails"[^>]*data-problems="0"/);
  });

  it('runs a selection, and all matching a filter after confirming the count', async () => {
    const jobs = h.t.service.getQueue('jobs');
    await jobs.add(Array.from({ length: 5 }, (_, i) => ({ name: `later-${i}`, tag: 'x', countdownSeconds: 3600 })));
    await jobs.add({ name: 'other', tag: 'y', countdownSeconds: 3600 });
    const b = browser(h);
    await b.signIn(ADMIN);
    const csrf = csrfOf(await b.send('/console/queues/jobs'));
    const selected = await b.send('/console/queues/jobs/bulk', {
      form: [
        ['_csrf', csrf],
        ['op', 'run'],
        ['confirm', '1'],
        ['task', 'later-0'],
      ],
    });
    expect(selected.headers.get('location')).toBe('/console/queues/jobs?done=run&n=1&of=1');

    const review = await b.send('/console/queues/jobs/run-matching', {
      form: { _csrf: csrf, state: 'delayed', tag: 'x' },
    });
    expect(review.text).toContain('Run 4 tasks now?');
    expect(await h.t.sql(`select count(*)::int as n from ${h.t.schema}.tasks where eta <= now()`)).toEqual([{ n: 1 }]);
    const done = await b.send('/console/queues/jobs/run-matching', {
      form: { _csrf: csrf, state: 'delayed', tag: 'x', confirm: '4' },
    });
    expect(done.headers.get('location')).toBe('/console/queues/jobs?state=delayed&tag=x&done=run&n=4');
    expect(await h.t.sql(`select name from ${h.t.schema}.tasks where eta > now()`)).toEqual([{ name: 'other' }]);
    expect((await h.audit.list({ limit: 1 }))[0]).toMatchObject({ action: 'run_now', count: 4, source: 'console' });
  });
});
