import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue } from '../helpers/configs.js';
import { ADMIN, browser, csrfOf, openConsoleHarness, type ConsoleHarness } from './console-harness.js';

const rowsOf = (html: string) => [...html.matchAll(/data-dead-letter="([^"]+)"/g)].map((match) => match[1]);

describe('dead letters in the console: found by name, in full, filtered and acted on all matching', () => {
  let h: ConsoleHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** Tasks the retry limit (1) drops: leased once, their leases left to lapse, leased again. */
  const kill = async (tasks: { name: string; tag?: string }[]) => {
    const jobs = h!.t.service.getQueue('jobs');
    for (let i = 0; i < tasks.length; i += 100)
      await jobs.add(tasks.slice(i, i + 100).map((task) => ({ ...task, payload: `{"job":"${task.name}"}` })));
    for (let i = 0; i < 2; i++) {
      await jobs.leaseTasks({ lease: 60, maxTasks: 1000 });
      await h!.t.sql(`update ${h!.t.schema}.tasks set eta = now() - interval '1 second'`);
    }
  };

  it('sends a dead-lettered task found by name to its dead-letter page, which tells it all', async () => {
    h = await openConsoleHarness('postgres', { queues: [pullQueue('jobs', { maxLeases: 1 })] });
    await kill([{ name: 'doomed', tag: 'billing-eu' }]);
    await h.t.sql(`update ${h.t.schema}.task_dead_letters set last_error = 'renderer crashed'`);
    const b = browser(h);
    await b.signIn(ADMIN);
    const found = await b.send('/console/queues/jobs/tasks/doomed');
    expect(found.status).toBe(303);
    expect(found.headers.get('location')).toBe('/console/queues/jobs/dead-letters/doomed');
    const page = await b.send('/console/queues/jobs/dead-letters/doomed');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('deleted within');
    expect(page.text).toContain('This task is a dead letter: retry limit: leased 1 time, never deleted.');
    expect(page.text).toContain('renderer crashed');
    expect(page.text).toContain('billing-eu');
    expect(page.text).toContain('&quot;job&quot;: &quot;doomed&quot;');
    expect(page.text).toContain('action="/console/queues/jobs/redrive"');
    expect(page.text).toContain('name="op" value="forget"');
    // The list links each letter to its page.
    const list = await b.send('/console/queues/jobs/dead-letters');
    expect(list.text).toContain('href="/console/queues/jobs/dead-letters/doomed"');
    // Redriven, it is a task again; its dead-letter page says it is gone.
    await b.send('/console/queues/jobs/redrive', { form: { _csrf: csrfOf(page), task: 'doomed' } });
    expect((await b.send('/console/queues/jobs/tasks/doomed')).status).toBe(200);
    expect((await b.send('/console/queues/jobs/dead-letters/doomed')).status).toBe(404);
  });

  it('filters by tag prefix, error text and age, and redrives all a filter matches after confirming its count', async () => {
    h = await openConsoleHarness('postgres', { queues: [pullQueue('jobs', { maxLeases: 1 })] });
    await kill(Array.from({ length: 130 }, (_, i) => ({ name: `d-${i}`, tag: i < 120 ? 'billing-eu' : 'mail' })));
    await h.t.sql(`update ${h.t.schema}.task_dead_letters set last_error = 'HTTP 502' where tag = 'mail'`);
    await h.t.sql(`update ${h.t.schema}.task_dead_letters set died_at = now() - interval '2 days' where name = 'd-0'`);
    const b = browser(h);
    await b.signIn(ADMIN);
    const billing = await b.send('/console/queues/jobs/dead-letters?tag=billing');
    expect(rowsOf(billing.text)).toHaveLength(100);
    expect(billing.text).toContain('120 dead letters match this filter.');
    expect((await b.send('/console/queues/jobs/dead-letters?error=http%20502')).text).toContain(
      '10 dead letters match this filter.',
    );
    expect(rowsOf((await b.send('/console/queues/jobs/dead-letters?age=1d')).text)).toEqual(['d-0']);

    const csrf = csrfOf(billing);
    const review = await b.send('/console/queues/jobs/dead-letters/matching', {
      form: { _csrf: csrf, op: 'redrive', tag: 'billing' },
    });
    expect(review.status).toBe(200);
    expect(review.text).toContain('Put back in the queue 120 dead letters of jobs?');
    expect(review.text).toContain('Every dead letter whose tag starts with &quot;billing&quot;.');
    expect(review.text).toContain('name="confirm" value="120"');
    // Confirmed for 100 (say the count was 100 when it was read): only 100 go back.
    const done = await b.send('/console/queues/jobs/dead-letters/matching', {
      form: { _csrf: csrf, op: 'redrive', tag: 'billing', confirm: '100' },
    });
    expect(done.headers.get('location')).toBe(
      '/console/queues/jobs/dead-letters?tag=billing&done=redrive&n=100&of=100',
    );
    const after = await b.send('/console/queues/jobs/dead-letters?tag=billing');
    expect(after.text).toContain('20 dead letters match this filter.');
    const audit = await h.audit.list({ limit: 5, actions: ['redrive'] });
    expect(audit.map((entry) => [entry.actor, entry.count])).toEqual([[ADMIN, 100]]);
    // Deleted for good: the mail ones.
    await b.send('/console/queues/jobs/dead-letters/matching', {
      form: { _csrf: csrf, op: 'forget', error: 'HTTP 502', confirm: '10' },
    });
    expect((await b.send('/console/queues/jobs/dead-letters?tag=mail')).text).toContain(
      'No dead letter matches this filter.',
    );
  });
});
