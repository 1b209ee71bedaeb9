import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue } from '../helpers/configs.js';
import { ADMIN, READER, browser, openConsoleHarness, type ConsoleHarness } from './console-harness.js';

const rowsOf = (html: string) =>
  [...(/id="search-results"[\s\S]*?<\/table>/.exec(html)?.[0] ?? '').matchAll(/data-task="([^"]+)"/g)].map(
    (match) => match[1],
  );
const unescape = (text: string) => text.replaceAll('&amp;', '&');

describe('searching tasks in the console', () => {
  let h: ConsoleHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('offers a labelled GET form on the queue page, and shows what it finds in the task table style', async () => {
    h = await openConsoleHarness('postgres');
    const jobs = h.t.service.getQueue('jobs');
    await jobs.add([
      { name: 'resize-1', tag: 'images', payload: '{"file":"cat.png"}' },
      { name: 'resize-2', tag: 'images', payload: '{"file":"dog.png"}' },
      { name: 'email-1', tag: 'mail', payload: '{"to":"cat@example.com"}' },
    ]);
    const [leased] = await jobs.leaseTasks({ lease: 60, maxTasks: 1, tag: 'mail' });
    await jobs.failTask(leased!, 'SMTP 451 try later');
    const b = browser(h);
    await b.signIn(ADMIN);

    const queue = await b.send('/console/queues/jobs');
    expect(queue.text).toContain('<form method="get" action="/console/queues/jobs/search"');
    for (const id of ['search-name', 'search-tag', 'search-state', 'search-error', 'search-payload'])
      expect(queue.text).toMatch(new RegExp(`<label for="${id}">[^<]+</label>`));

    const byName = await b.send('/console/queues/jobs/search?name=resize');
    expect(byName.status).toBe(200);
    expect(rowsOf(byName.text)).toEqual(['resize-1', 'resize-2']);
    expect(byName.text).toContain('Found 2 tasks.');
    // The form comes back filled; the rows link to their tasks.
    expect(byName.text).toMatch(/id="search-name" name="name" value="resize"/);
    expect(byName.text).toContain('href="/console/queues/jobs/tasks/resize-1"');

    expect(rowsOf((await b.send('/console/queues/jobs/search?payload=cat')).text)).toEqual(['resize-1', 'email-1']);
    const failing = await b.send('/console/queues/jobs/search?state=failing&error=smtp');
    expect(rowsOf(failing.text)).toEqual(['email-1']);
    expect(failing.text).toContain('SMTP 451 try later');
    expect(rowsOf((await b.send('/console/queues/jobs/search?tag=im&payload=dog')).text)).toEqual(['resize-2']);
    expect((await b.send('/console/queues/jobs/search?name=none')).text).toContain('No task matches.');

    // A refused filter: 400, why, and the form to mend it.
    const bad = await b.send('/console/queues/jobs/search?name=no%20spaces');
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(
      /role="alert" id="search-problem">Cannot search: namePrefix must be the start of a task name/,
    );
    expect(bad.text).toContain('id="task-search"');

    // A read: nothing in the audit log.
    expect(await h.t.sql(`select action from ${h.t.schema}.audit_log`)).toEqual([]);
  });

  it('pages on, and says when a request stopped at its scan limit, with the link that goes on', async () => {
    h = await openConsoleHarness('postgres', { queues: [pullQueue('big')] });
    await h.t.sql(
      `insert into ${h.t.schema}.tasks (queue_id, name, eta, payload, last_error)
       select q.id, 't' || lpad(i::text, 5, '0'), now() - interval '1 day' + i * interval '1 millisecond', '\\x'::bytea,
              case when i in (3, 10040) then 'out of memory' end
         from ${h.t.schema}.queues q, generate_series(1, 10060) i where q.name = 'big'`,
    );
    const b = browser(h);
    await b.signIn(ADMIN);
    const first = await b.send('/console/queues/big/search?error=memory');
    expect(rowsOf(first.text)).toEqual(['t00003']);
    expect(first.text).toContain('Found 1 task in 10,000 tasks searched; more remain');
    const next = /<a href="([^"]+)" id="search-next">Search the next 10,000 tasks<\/a>/.exec(first.text)?.[1];
    expect(next).toMatch(/^\/console\/queues\/big\/search\?error=memory&amp;cursor=s1\./);
    const second = await b.send(unescape(next!));
    expect(rowsOf(second.text)).toEqual(['t10040']);
    expect(second.text).toContain('Found 1 task from where the last request stopped.');
    expect(second.text).not.toContain('id="search-next"');

    // Without a filter no index lacks, a page fills at once: 50 tasks and a next page.
    const plain = await b.send('/console/queues/big/search?name=t0');
    expect(rowsOf(plain.text)).toHaveLength(50);
    expect(plain.text).toContain('more may match');
    expect(plain.text).toMatch(/id="search-next">Next page</);
  });

  it('is for whoever may list the queue: an ACL reader of the queue may, of another queue may not', async () => {
    h = await openConsoleHarness('postgres');
    await h.t.service.getQueue('jobs').add({ name: 'mine', payload: 'x' });
    const b = browser(h);
    await b.signIn(READER);
    expect(rowsOf((await b.send('/console/queues/jobs/search?name=mi')).text)).toEqual(['mine']);
    expect((await b.send('/console/queues/emails/search?name=mi')).status).toBe(404);
  });
});
