import { afterEach, describe, expect, it } from 'vitest';
import { noticeOf } from '../../src/console/console-actions.js';
import { safeNext } from '../../src/console/console-pages.js';
import { formatRelative } from '../../src/console/format.js';
import { hexDump, payloadView } from '../../src/console/payload-detail.js';
import { summarize, triage, type QueueSignals } from '../../src/console/queue-triage.js';
import { triageSetting, triageText } from '../../src/config/triage-settings.js';
import type { QueueAttention } from '../../src/core/queue-attention.js';
import { DEFAULT_TRIAGE_THRESHOLDS } from '../../src/core/triage-thresholds.js';
import { taskStateOf } from '../../src/console/task-state.js';
import type { PushQueueOverview, QueueOverview } from '../../src/core/queue-overview.js';
import { pullQueue } from '../helpers/configs.js';
import { ADMIN, READER, browser, csrfOf, openConsoleHarness, type ConsoleHarness } from './console-harness.js';

const overview = (name: string, change: Partial<QueueOverview> = {}): QueueOverview => ({
  name,
  mode: 'pull',
  paused: false,
  availableTasks: 0,
  leasedTasks: 0,
  delayedTasks: 0,
  oldestAvailableAgeSeconds: null,
  leasedLastMinute: 0,
  leasedLastHour: 0,
  deadLetters: 0,
  storageBytes: 0,
  storageLimitBytes: null,
  retryLimit: null,
  leaseRate: null,
  ...change,
});

/** The names of the rows of a table, in page order. */
const rowsOf = (html: string, attribute: string) =>
  [...html.matchAll(new RegExp(`${attribute}="([^"]+)"`, 'g'))].map((m) => m[1]);

describe('console views, pure parts', () => {
  it('ranks by what needs a human now: failing deliveries first, a 60k backlog above old dead letters, old tasks no noise', () => {
    const push = (change: Partial<PushQueueOverview> = {}): PushQueueOverview => ({
      ratePerSecond: 5,
      bucketSize: 5,
      maxConcurrentRequests: null,
      targetUrl: 'http://app.internal',
      target: null,
      inFlight: 0,
      tokens: null,
      heldUntilUsec: null,
      slowedUntilUsec: null,
      ...change,
    });
    const attention = (name: string, change: Partial<QueueAttention> = {}): QueueAttention => ({
      name,
      failingDeliveries: 0,
      failingForSeconds: null,
      failingStatus: null,
      failingError: null,
      deadLettersArrived: 0,
      ...change,
    });
    // 131 queues of mixed health, as an on-call operator finds them; most are fine with a few old tasks.
    const queues = [
      ...Array.from({ length: 120 }, (_, i) =>
        overview(`fine-${i}`, { availableTasks: 3, oldestAvailableAgeSeconds: 400 + i }),
      ),
      overview('old-dead', { deadLetters: 900 }),
      overview('backlog', { availableTasks: 60_000, oldestAvailableAgeSeconds: 120 }),
      overview('growing', { availableTasks: 4_000 }),
      overview('paused', { paused: true, availableTasks: 10, oldestAvailableAgeSeconds: 86_400 }),
      overview('full', { storageBytes: 850, storageLimitBytes: 1000 }),
      overview('stalled', { availableTasks: 4, oldestAvailableAgeSeconds: 7200 }),
      overview('arriving', { deadLetters: 2 }),
      overview('push-flaky', { mode: 'push', push: push() }),
      overview('push-nowhere', { mode: 'push', push: push({ targetUrl: null }), availableTasks: 5 }),
      overview('push-failing', { mode: 'push', push: push(), availableTasks: 40, leasedTasks: 12 }),
      overview('push-fine', { mode: 'push', push: push() }),
    ];
    expect(queues).toHaveLength(131);
    const signals: Record<string, QueueSignals> = {
      'push-failing': {
        attention: attention('push-failing', { failingDeliveries: 12, failingForSeconds: 3300, failingStatus: 502 }),
      },
      // Failing for a minute: a retry under way, below push-failing.
      'push-flaky': { attention: attention('push-flaky', { failingDeliveries: 1, failingForSeconds: 60 }) },
      arriving: { attention: attention('arriving', { deadLettersArrived: 2 }) },
      growing: { availableBefore: 1_500 },
      backlog: { availableBefore: 59_900 },
    };
    const ranked = triage(queues, (name) => signals[name] ?? {}, DEFAULT_TRIAGE_THRESHOLDS);
    expect(ranked.slice(0, 9).map((q) => q.overview.name)).toEqual([
      'push-failing',
      'push-nowhere',
      'arriving',
      'growing',
      'backlog',
      'full',
      'stalled',
      'paused',
      'fine-0',
    ]);
    expect(ranked.findIndex((q) => q.overview.name === 'backlog')).toBeLessThan(
      ranked.findIndex((q) => q.overview.name === 'old-dead'),
    );
    expect(ranked[0]!.flags).toEqual([
      { problem: 'failing deliveries', detail: '12 tasks failing, the longest for 55 min: HTTP 502' },
    ]);
    expect(ranked.filter((q) => q.flags.length > 0)).toHaveLength(8);
    // The stuck-lease count, when known, ranks above dead letters arriving.
    const withStuck = triage(
      queues,
      (name) => (name === 'fine-7' ? { stuckLeases: 2 } : (signals[name] ?? {})),
      DEFAULT_TRIAGE_THRESHOLDS,
    );
    expect(withStuck.slice(0, 3).map((q) => q.overview.name)).toEqual(['push-failing', 'push-nowhere', 'fine-7']);
    // Without it, the overview's long leases are the count: an hour's lease of a dead worker is no healthy lease.
    const withLong = triage(
      queues.map((q) => (q.name === 'fine-9' ? { ...q, leasedTasks: 3, longLeases: 1 } : q)),
      (name) => signals[name] ?? {},
      DEFAULT_TRIAGE_THRESHOLDS,
    );
    expect(withLong.slice(0, 3).map((q) => q.overview.name)).toEqual(['push-failing', 'push-nowhere', 'fine-9']);
    expect(withLong[2]!.flags).toEqual([
      { problem: 'stuck leases', detail: '1 lease with more than 15 min still to run' },
    ]);
    expect(summarize(withLong).problems).toContainEqual(['stuck leases', 1]);
    // Thresholds an operator changed: old tasks past 5 minutes count, and 55 minutes of failures no longer do.
    const strict = triageSetting('stalled=5m,push-failing=2h');
    expect(strict).toMatchObject({ stalledSeconds: 300, pushFailingSeconds: 7200, backlogTasks: 10_000 });
    const flagged = triage(queues, (name) => signals[name] ?? {}, strict).filter((q) => q.flags.length > 0);
    expect(flagged.map((q) => q.overview.name)).not.toContain('push-failing');
    expect(flagged).toHaveLength(127);
    expect(summarize(ranked)).toEqual({
      queues: 131,
      waiting: 64_431,
      deadLetters: 902,
      problems: [
        ['failing deliveries', 1],
        ['no target URL', 1],
        ['dead letters arriving', 1],
        ['backlog growing', 1],
        ['backlog', 1],
        ['storage', 1],
        ['stalled', 1],
        ['paused', 1],
      ],
    });
    expect(() => triageSetting('backlog=lots')).toThrow(/TASKQUEUE_CONSOLE_TRIAGE must be name=value pairs/);
    expect(() => triageSetting('old-tasks=1h')).toThrow(/TASKQUEUE_CONSOLE_TRIAGE/);
    expect(triageText(DEFAULT_TRIAGE_THRESHOLDS)).toBe(
      'push-failing=300s,backlog=10000,backlog-growth=1000,backlog-window=600s,dead-letters=3600s,stalled=3600s',
    );
  });

  it("tells a task's state from its row: a lease that ran out is available, not leased", () => {
    const now = 1_800_000_000_000;
    expect(taskStateOf({ etaUsec: (now - 60_000) * 1000, retryCount: 1 }, now)).toBe('available');
    expect(taskStateOf({ etaUsec: (now + 60_000) * 1000, retryCount: 1 }, now)).toBe('leased');
    expect(taskStateOf({ etaUsec: (now + 60_000) * 1000, retryCount: 0 }, now)).toBe('delayed');
    expect(formatRelative(240_000)).toBe('in 4 min');
    expect(formatRelative(-180_000)).toBe('3 min ago');
    expect(formatRelative(-2000)).toBe('now');
    expect(formatRelative(-5_400_000)).toBe('1.5 h ago');
  });

  it('shows a payload as pretty JSON, text, or hex with ASCII', () => {
    expect(payloadView(Buffer.from('{"a":[1,2]}'))).toEqual({
      kind: 'json',
      text: '{\n  "a": [\n    1,\n    2\n  ]\n}',
      truncated: false,
    });
    expect(payloadView(Buffer.from('{not json'))).toMatchObject({ kind: 'text', text: '{not json' });
    expect(payloadView(Buffer.alloc(0)).kind).toBe('empty');
    const bytes = Buffer.from([
      0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0xff,
    ]);
    expect(hexDump(bytes).split('\n')).toEqual([
      '00000000  89 50 4e 47 00 01 02 41 42 43 44 45 46 47 48 49  .PNG...ABCDEFGHI',
      '00000010  ff                                               .',
    ]);
    expect(payloadView(Buffer.alloc(70_000, 0)).truncated).toBe(true);
  });

  it('returns after sign-in only to a console page of this server', () => {
    expect(safeNext('/console/queues/jobs?state=leased')).toBe('/console/queues/jobs?state=leased');
    expect(safeNext('/console')).toBe('/console');
    for (const bad of [
      'https://evil.example/console',
      '//evil.example',
      '/console//evil',
      '/consolex',
      '/console/sign-in',
      '/console\\x',
      undefined,
      3,
    ]) {
      expect(safeNext(bad)).toBe('/console');
    }
  });
});

describe('console views, server side', () => {
  let h: ConsoleHarness;
  afterEach(async () => h?.close());

  it('lists problem queues first with a summary and storage as a percentage, filtered by name', async () => {
    h = await openConsoleHarness('postgres', {
      queues: [
        pullQueue('alpha'),
        pullQueue('bravo', { maxLeases: 1 }),
        pullQueue('charlie', { storageLimitBytes: 100 }),
        pullQueue('delta'),
      ],
    });
    await h.t.service.getQueue('charlie').add({ name: 'big', payload: 'x'.repeat(90) });
    await h.t.operate('delta').pause();
    const bravo = h.t.service.getQueue('bravo');
    await bravo.add({ name: 'doomed' });
    for (let i = 0; i < 2; i++) {
      await bravo.leaseTasks({ lease: 60, maxTasks: 1 });
      await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '1 second' where name = 'doomed'`);
    }
    const b = browser(h);
    await b.signIn(ADMIN);
    const page = await b.send('/console');
    expect(rowsOf(page.text, 'data-queue')).toEqual(['bravo', 'charlie', 'delta', 'default', 'alpha']);
    expect(page.text).toContain(
      'Needs attention: dead letters arriving in 1 queue; storage in 1 queue; paused in 1 queue.',
    );
    expect(page.text).toContain('dead letters arriving</span><span class="why">1 in the last 1 h<');
    expect(page.text).toContain('How queues are ranked');
    expect(page.text).toMatch(/>9\d%</);
    const filtered = await b.send('/console?q=AR');
    expect(rowsOf(filtered.text, 'data-queue')).toEqual(['charlie']);
    expect(filtered.text).toContain('1 queue matching');
    expect((await b.send('/console?q=zzz')).text).toContain('No queue name contains');
  });

  it("shows each task's state and offers Release only on leased rows; a task page shows it all; search finds it by name", async () => {
    h = await openConsoleHarness('postgres');
    const jobs = h.t.service.getQueue('jobs');
    await jobs.add([
      { name: 'lapsed', payload: '{"order":7,"items":["a"]}' },
      { name: 'held', payload: 'plain text' },
      { name: 'later', payload: new Uint8Array([0, 0x41, 0xff]), countdownSeconds: 3600 },
    ]);
    await jobs.leaseTasks({ lease: 600, maxTasks: 2 });
    await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '3 minutes' where name = 'lapsed'`);
    const b = browser(h);
    await b.signIn(ADMIN);
    const page = await b.send('/console/queues/jobs');
    const states = Object.fromEntries(
      [...page.text.matchAll(/data-task="([^"]+)" data-state="([^"]+)"/g)].map((m) => [m[1], m[2]]),
    );
    expect(states).toEqual({ lapsed: 'available', held: 'leased', later: 'delayed' });
    const row = (name: string) =>
      /<tr data-task="[^"]+"[^]*?<\/tr>/g.exec(page.text.slice(page.text.indexOf(`data-task="${name}"`) - 8))![0];
    expect(row('held')).toContain('/console/queues/jobs/release');
    expect(row('lapsed')).not.toContain('/release');
    expect(row('lapsed')).toContain('lease ran out');
    expect(row('lapsed')).toContain('3 min ago');
    expect(row('held')).toMatch(/lease ends.*in 10 min/);
    expect(row('held')).toMatch(/title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"/);

    const detail = await b.send('/console/queues/jobs/tasks/lapsed');
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('{\n  &quot;order&quot;: 7,');
    expect(detail.text).toContain('25 bytes, JSON');
    expect(detail.text).toContain('1 lease so far');
    const binary = await b.send('/console/queues/jobs/tasks/later');
    expect(binary.text).toContain('00000000  00 41 ff');
    expect(binary.text).toContain('.A.');
    const found = await b.send('/console/queues/jobs/tasks?name=held');
    expect(found.headers.get('location')).toBe('/console/queues/jobs/tasks/held');
    expect((await b.send('/console/queues/jobs/tasks/nothing')).status).toBe(404);
    expect((await b.send('/console/queues/jobs/tasks?name=bad%20name')).status).toBe(400);
    // A reader of figures only (no task.list) sees no task page.
    const reader = browser(h);
    await reader.signIn(READER);
    expect((await reader.send('/console/queues/jobs/tasks/held')).status).toBe(200);
    expect((await reader.send('/console/queues/emails/tasks/held')).status).toBe(404);
  });

  it('pages dead letters on their own tab, filters them by tag, and says who paused the queue', async () => {
    h = await openConsoleHarness('postgres', { queues: [pullQueue('jobs', { maxLeases: 1 })] });
    const jobs = h.t.service.getQueue('jobs');
    const named = Array.from({ length: 101 }, (_, i) => ({
      name: `d-${String(i).padStart(3, '0')}`,
      tag: i < 3 ? 'red' : 'blue',
    }));
    await jobs.add(named.slice(0, 100));
    await jobs.add(named.slice(100));
    for (let i = 0; i < 2; i++) {
      await jobs.leaseTasks({ lease: 60, maxTasks: 1000 });
      await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '1 second'`);
    }
    expect((await h.t.service.overview(['jobs']))[0]!.deadLetters).toBe(101);
    const b = browser(h);
    await b.signIn(ADMIN);
    const first = await b.send('/console/queues/jobs/dead-letters?order=oldest');
    expect(rowsOf(first.text, 'data-dead-letter')).toHaveLength(100);
    expect(first.text).toContain('Dead letters (101)');
    const next = /href="([^"]+after=[^"]+)"/.exec(first.text)![1]!.replaceAll('&amp;', '&');
    expect(rowsOf((await b.send(next)).text, 'data-dead-letter')).toEqual(['d-100']);
    // Newest death first unless asked: the page turns backwards through the same keyset.
    const newest = await b.send('/console/queues/jobs/dead-letters');
    expect(rowsOf(newest.text, 'data-dead-letter')[0]).toBe('d-100');
    const older = /href="([^"]+after=[^"]+)"/.exec(newest.text)![1]!.replaceAll('&amp;', '&');
    expect(rowsOf((await b.send(older)).text, 'data-dead-letter')).toEqual(['d-000']);
    expect(
      rowsOf((await b.send('/console/queues/jobs/dead-letters?tag=re&order=oldest')).text, 'data-dead-letter'),
    ).toEqual(['d-000', 'd-001', 'd-002']);

    const home = await b.send('/console/queues/jobs');
    await b.send('/console/queues/jobs/pause', { form: { _csrf: csrfOf(home) } });
    const paused = await b.send('/console/queues/jobs');
    expect(paused.text).toMatch(/Paused by admin@example\.com \(console\) <time[^>]*>now<\/time>/);
  });

  it('filters the audit log by queue, actor, action and source, a page at a time', async () => {
    h = await openConsoleHarness('postgres');
    for (let i = 0; i < 105; i++)
      await h.audit.record({ actor: 'a@example.com', action: 'pause', queue: 'jobs', count: 0 });
    await h.audit.record({ actor: 'b@example.com', action: 'purge', queue: 'emails', count: 4, source: 'cli' });
    const b = browser(h);
    await b.signIn(ADMIN);
    const all = await b.send('/console/audit');
    expect(rowsOf(all.text, 'data-action')).toHaveLength(100);
    const older = /href="(\/console\/audit\?[^"]+)"/.exec(all.text)![1]!.replaceAll('&amp;', '&');
    expect(rowsOf((await b.send(older)).text, 'data-action')).toHaveLength(6);
    for (const query of ['actor=b%40example.com', 'action=purge', 'source=cli', 'queue=emails']) {
      expect(rowsOf((await b.send(`/console/audit?${query}`)).text, 'data-action')).toEqual(['purge']);
    }
    const paged = await b.send('/console/audit?action=pause');
    expect(/href="(\/console\/audit\?[^"]+)"/.exec(paged.text)![1]).toContain('action=pause');
    // A reader asking for a queue they may not read gets nothing.
    const reader = browser(h);
    await reader.signIn(READER);
    expect(rowsOf((await reader.send('/console/audit?queue=emails')).text, 'data-action')).toEqual([]);
  });

  it('sends a signed-out browser to sign in saying why, and back to the page it asked for', async () => {
    h = await openConsoleHarness('postgres');
    const b = browser(h);
    const asked = await b.send('/console/queues/jobs?state=leased');
    expect(asked.headers.get('location')).toBe('/console/sign-in?next=%2Fconsole%2Fqueues%2Fjobs%3Fstate%3Dleased');
    const signInPage = await b.send(asked.headers.get('location')!);
    expect(signInPage.text).toContain('Sign in to see that page.');
    expect(signInPage.text).toContain('name="next" value="/console/queues/jobs?state=leased"');
    const token = await h.issuer!.mint(ADMIN);
    const signedIn = await b.send('/console/sign-in', { form: { token, next: '/console/queues/jobs?state=leased' } });
    expect(signedIn.headers.get('location')).toBe('/console/queues/jobs?state=leased');
    const out = await b.send('/console/sign-out', { form: { _csrf: csrfOf(await b.send('/console')) } });
    expect(out.headers.get('location')).toBe('/console/sign-in?out=1');
    expect((await b.send('/console/sign-in?out=1')).text).toContain('You signed out.');
    const ended = await h.app.request('http://localhost/console/audit', {
      headers: { cookie: 'taskqueue_console=expired' },
    });
    expect(ended.headers.get('location')).toBe('/console/sign-in?ended=1&next=%2Fconsole%2Faudit');
    // A chart's data is never where sign-in returns to.
    expect((await b.send('/console/queues/jobs/series.json')).headers.get('location')).toBe('/console/sign-in');
  });

  it('acts on a selection only after a page of its own names the tasks and their count, and the count comes back', async () => {
    h = await openConsoleHarness('postgres');
    const jobs = h.t.service.getQueue('jobs');
    await jobs.add([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    const b = browser(h);
    await b.signIn(ADMIN);
    const page = await b.send('/console/queues/jobs');
    expect(page.text).toContain('form="bulk-tasks"');
    const csrf = csrfOf(page);
    const send = (fields: [string, string][]) =>
      h.app.request('http://localhost/console/queues/jobs/bulk', {
        method: 'POST',
        headers: {
          host: 'localhost',
          'sec-fetch-site': 'same-origin',
          cookie: b.cookie!,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams([['_csrf', csrf], ...fields]).toString(),
      });
    const review = await send([
      ['op', 'delete'],
      ['task', 'a'],
      ['task', 'b'],
    ]);
    const text = await review.text();
    expect(text).toContain('Delete 2 tasks of jobs?');
    expect(rowsOf(text, 'name="task" value')).toEqual(['a', 'b']);
    expect(text).toContain('name="confirm" value="2"');
    expect(await jobs.listTasks()).toHaveLength(3);
    // A count that is not the number sent (a third task slipped in): refused, nothing done.
    expect(
      (
        await send([
          ['op', 'delete'],
          ['confirm', '2'],
          ['task', 'a'],
          ['task', 'b'],
          ['task', 'c'],
        ])
      ).status,
    ).toBe(409);
    expect(await jobs.listTasks()).toHaveLength(3);
    const done = await send([
      ['op', 'delete'],
      ['confirm', '2'],
      ['task', 'a'],
      ['task', 'b'],
    ]);
    expect(done.headers.get('location')).toBe('/console/queues/jobs?done=delete&n=2&of=2');
    expect((await jobs.listTasks()).map((t) => t.name)).toEqual(['c']);
    expect((await b.send('/console/queues/jobs?done=delete&n=2&of=2')).text).toContain('Deleted 2 tasks.<');
    // A selection only partly done says what was not, and why.
    expect((await b.send('/console/queues/jobs?done=release&n=1&of=3')).text).toContain(
      'Released the lease: the task is available again. 2 of the 3 selected were not leased (the lease had ended, or the task was gone): nothing to release.',
    );
    expect(noticeOf('pause', '0', { push: true })).toBe(
      'Paused: nothing is dispatched until the queue is resumed (adds are accepted; requests in flight finish).',
    );
    expect(noticeOf('resume', '0', { push: true })).toBe('Resumed: its tasks are dispatched again.');
    expect(
      (
        await send([
          ['op', 'explode'],
          ['task', 'c'],
        ])
      ).status,
    ).toBe(400);
    expect((await send([['op', 'delete']])).status).toBe(400);
    expect((await h.audit.list({ limit: 5 })).map((e) => [e.action, e.target, e.count])).toEqual([
      ['delete_task', null, 2],
    ]);
    // A reader's selection is refused like any action of theirs.
    const reader = browser(h);
    await reader.signIn(READER);
    const readerPage = await reader.send('/console/queues/jobs');
    expect(readerPage.text).not.toContain('bulk-tasks');
    const refused = await reader.send('/console/queues/jobs/bulk', {
      form: { _csrf: csrfOf(readerPage), op: 'delete', confirm: '1', task: 'c' },
    });
    expect(refused.status).toBe(403);
    expect(await jobs.listTasks()).toHaveLength(1);
  });
});
