import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isSecretHeader, MASKED, maskHeaders } from '../../src/core/push/mask-headers.js';
import { pushTaskStateOf } from '../../src/console/push-task-state.js';
import { pullQueue } from '../helpers/configs.js';
import { ENGINES, testPGlite } from '../helpers/engines.js';
import { pushQueue } from '../helpers/push-sink.js';
import { openConsoleHarness, type ConsoleHarness } from './console-harness.js';

/** Nothing listens there: dispatch is off, so tasks stay in the states the test writes. */
const TARGET = 'http://127.0.0.1:9/app';

describe('push task state and header masking', () => {
  it('words a push task by its claim, ETA and attempts', () => {
    const now = 1_000_000;
    const at = (ms: number) => ms * 1000;
    expect(pushTaskStateOf({ etaUsec: at(now - 1), retryCount: 0 }, now)).toBe('waiting');
    expect(pushTaskStateOf({ etaUsec: at(now - 1), retryCount: 3 }, now)).toBe('waiting');
    expect(pushTaskStateOf({ etaUsec: at(now + 5), retryCount: 0 }, now)).toBe('scheduled');
    expect(pushTaskStateOf({ etaUsec: at(now + 5), retryCount: 2 }, now)).toBe('retrying');
    const flying = { executionCount: 0, lastStatus: null, lastError: null, inFlight: true };
    expect(pushTaskStateOf({ etaUsec: at(now + 5), retryCount: 1, delivery: flying }, now)).toBe('in flight');
  });

  it('masks credentials by name, whatever their case, and keeps the rest', () => {
    for (const name of [
      'Authorization',
      'proxy-authorization',
      'Cookie',
      'X-Api-Key',
      'X-Auth-Token',
      'X-Hub-Signature-256',
      'X-Client-Secret',
      'X-Session-Id',
    ]) {
      expect(isSecretHeader(name), name).toBe(true);
    }
    expect(
      maskHeaders([
        ['Content-Type', 'application/json'],
        ['AUTHORIZATION', 'Bearer x'],
        ['X-Trace', 't-1'],
      ]),
    ).toEqual([
      ['Content-Type', 'application/json'],
      ['AUTHORIZATION', MASKED],
      ['X-Trace', 't-1'],
    ]);
  });
});

describe.each(ENGINES)('the console on push queues (%s)', (engine) => {
  let h: ConsoleHarness | undefined;
  // The embedded engine is created once per test file, which takes a while on a busy machine: not in a test's time.
  beforeAll(async () => {
    if (engine === 'pglite') await testPGlite();
  }, 180_000);
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const open = async () => {
    h = await openConsoleHarness(engine, {
      auth: false,
      open: { dispatch: false },
      queues: [
        pushQueue('hooks', TARGET, { ratePerSecond: 20, bucketSize: 7, maxConcurrentRequests: 3, target: 'v2.hooks' }),
        pullQueue('jobs'),
      ],
    });
    return h;
  };
  const page = async (path: string) => {
    const response = await h!.app.request(`http://localhost/console${path}`, {
      headers: { host: 'localhost', 'sec-fetch-site': 'same-origin' },
    });
    expect(response.status).toBe(200);
    return response.text();
  };
  /** The rows of the tasks table: name -> state. */
  const states = (html: string) =>
    Object.fromEntries([...html.matchAll(/<tr data-task="([^"]+)" data-state="([^"]+)"/g)].map((m) => [m[1], m[2]]));
  const row = (html: string, name: string) => html.slice(html.indexOf(`<tr data-task="${name}"`)).split('</tr>')[0]!;

  it('shows each task where its delivery stands, with its request, attempts and last outcome, and never a secret header', async () => {
    const { t } = await open();
    const hooks = t.service.getQueue('hooks');
    await hooks.add({ name: 'due', payload: 'p1' });
    await hooks.add({ name: 'later', countdownSeconds: 3600, url: '/later?x=1', method: 'PUT', payload: 'p2' });
    await hooks.add({ name: 'again', payload: 'p3', retryOptions: { taskRetryLimit: 4, minBackoffSeconds: 2 } });
    await hooks.add({
      name: 'flying',
      url: '/sign',
      headers: { Authorization: 'Bearer sekrit-token', 'X-Api-Key': 'key-123', 'X-Trace': 'visible-trace' },
      payload: 'p4',
    });
    // As the dispatcher leaves them: one failed twice (one response), one claimed and in flight.
    await t.sql(
      `update ${t.schema}.tasks set retry_count = 2, execution_count = 1, last_status = 500, last_error = 'HTTP 500',
              eta = now() + interval '30 seconds' where name = 'again'`,
    );
    await t.sql(
      `update ${t.schema}.tasks set retry_count = 1, dispatched_at = now(), eta = now() + interval '600 seconds' where name = 'flying'`,
    );
    const queueId = (await t.sql<{ id: number }>(`select id from ${t.schema}.queues where name = 'hooks'`))[0]!.id;
    // One token left at the last claim, ten seconds ago: refilled at 20/s, capped at the bucket.
    await t.sql(
      `insert into ${t.schema}.push_queue_state (queue_id, tokens, refilled_at) values ($1, 1, now() - interval '10 seconds')`,
      [queueId],
    );

    const overview = await page('');
    const hooksRow = overview.slice(overview.indexOf('<tr data-queue="hooks"')).split('</tr>')[0]!;
    expect(hooksRow).toContain('<span class="badge mode-push">push</span>');
    expect(hooksRow).toContain('20/s, 1 in flight');
    // Nothing leases a push queue's tasks: its lease counts are a dash, sorted below any count.
    const cells = (html: string) =>
      [...html.matchAll(/<td class="num"([^>]*)>([^<]*)</g)].map((m) => ({ attrs: m[1]!, text: m[2]!.trim() }));
    const leaseCells = (html: string) => cells(html).slice(4, 6);
    expect(leaseCells(hooksRow).map((c) => c.text)).toEqual(['-', '-']);
    for (const cell of leaseCells(hooksRow)) expect(cell.attrs).toContain('data-sort="-1"');
    const jobsRow = overview.slice(overview.indexOf('<tr data-queue="jobs"')).split('</tr>')[0]!;
    expect(jobsRow).toContain('<span class="hint">pull</span>');
    expect(jobsRow).not.toContain('in flight');
    expect(leaseCells(jobsRow).map((c) => c.text)).toEqual(['0', '0']);

    const queue = await page('/queues/hooks');
    const figures = queue.slice(queue.indexOf('id="queue-figures"')).split('</dl>')[0]!;
    const figure = (label: string) => new RegExp(`<dt>${label}</dt><dd>([^<]*)</dd>`).exec(figures)?.[1];
    expect(figure('Rate')).toBe('20/s');
    expect(figure('Bucket size')).toBe('7');
    expect(figure('Tokens now')).toBe('7');
    expect(figure('Max concurrent')).toBe('3');
    expect(figure('In flight')).toBe('1');
    expect(figure('Target')).toBe(TARGET);
    expect(figure('App Engine target')).toBe('v2.hooks');
    expect(figure('Waiting')).toBe('1');
    expect(figure('In flight or retrying')).toBe('2');
    expect(figure('Scheduled')).toBe('1');
    expect(figures).not.toContain('Lease rate');

    expect(states(queue)).toEqual({ due: 'waiting', later: 'scheduled', again: 'retrying', flying: 'in flight' });
    expect(row(queue, 'later')).toContain('<code>PUT /later?x=1</code>');
    expect(row(queue, 'due')).toContain('<code>POST /_ah/queue/hooks</code>');
    const again = row(queue, 'again');
    expect(again).toContain('next attempt');
    expect(again).toMatch(/data-label="Attempts">2</);
    expect(again).toMatch(/data-label="Executions">1</);
    expect(again).toMatch(/data-label="Last status">500</);
    expect(again).toContain('HTTP 500');
    // No lease to release on a push queue: delete only.
    expect(queue).not.toContain('Release leases of');
    expect(queue).not.toMatch(/sekrit|key-123/);

    const task = await page('/queues/hooks/tasks/flying');
    expect(task).toContain('<span class="badge state-in-flight">in flight</span>');
    expect(task).toContain('<code id="push-request">POST /sign</code>');
    expect(task).toContain(`<code>${TARGET}/sign</code>`);
    expect(task).toContain(`<code>Authorization: ${MASKED}</code>`);
    expect(task).toContain(`<code>X-Api-Key: ${MASKED}</code>`);
    expect(task).toContain('<code>X-Trace: visible-trace</code>');
    expect(task).not.toMatch(/sekrit|key-123/);
    expect(task).not.toContain('Release lease');

    const retried = await page('/queues/hooks/tasks/again');
    expect(retried).toContain('2 so far, 1 with a response');
    expect(retried).toContain('4 retries, backoff 2 s to 3600 s');
    expect(retried).toMatch(/class="last-status">500</);
  });

  it('shows a Retry-After hold (no tokens) and a 503 slow-down, and a paused push queue says nothing is dispatched', async () => {
    const { t } = await open();
    const queueId = (await t.sql<{ id: number }>(`select id from ${t.schema}.queues where name = 'hooks'`))[0]!.id;
    await t.sql(
      `insert into ${t.schema}.push_queue_state (queue_id, tokens, refilled_at, slow_until, hold_until)
       values ($1, 5, now(), now() + interval '5 minutes', now() + interval '1 minute')`,
      [queueId],
    );
    const [overview] = await t.service.overview(['hooks']);
    expect(overview!.push).toMatchObject({ tokens: 0, ratePerSecond: 20, bucketSize: 7, inFlight: 0 });
    expect(overview!.push!.heldUntilUsec).toBeGreaterThan(Date.now() * 1000);
    expect(overview!.push!.slowedUntilUsec).toBeGreaterThan(overview!.push!.heldUntilUsec!);
    expect((await t.service.overview(['jobs']))[0]!.push).toBeUndefined();
    const queue = await page('/queues/hooks');
    expect(queue).toMatch(/<dt>Tokens now<\/dt><dd>0<\/dd>/);
    expect(queue).toContain('id="push-held"');
    expect(queue).toContain('id="push-slowed"');

    await t.service.operate('hooks', { actor: 'ops@example.com', source: 'console' }).pause();
    const paused = await page('/queues/hooks');
    expect(paused).toContain(
      'nothing is dispatched until it is resumed (adds are accepted; requests in flight finish).',
    );
  });
});
