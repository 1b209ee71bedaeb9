import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { serve, type ServerType } from '@hono/node-server';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, READER, openConsoleHarness, type ConsoleHarness } from './console-harness.js';

/**
 * The console in a real browser: Debian's chromium (never a downloaded
 * one), headless, driven by playwright-core. One browser and one server for
 * the file; each step is what an operator would do.
 */
const CHROMIUM = '/usr/bin/chromium';
/** Set to a folder (docs/console) to save screenshots of the main pages there. */
const SCREENSHOTS = process.env.TASKQUEUE_CONSOLE_SCREENSHOTS;

describe('web console in chromium', () => {
  let h: ConsoleHarness;
  let server: ServerType;
  let base: string;
  let browser: Browser;
  let admin: BrowserContext;
  let page: Page;
  /** Script errors and CSP violations the pages reported. */
  const problems: string[] = [];

  beforeAll(async () => {
    [h, browser] = await Promise.all([
      openConsoleHarness('postgres', { refreshSeconds: 1, sampleIntervalSeconds: 1 }),
      chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        chromiumSandbox: false,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-default-apps',
          '--disable-sync',
          '--no-first-run',
        ],
      }),
    ]);
    server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((done) => (server.listening ? done() : server.once('listening', () => done())));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const jobs = h.t.service.getQueue('jobs');
    await jobs.add([
      { name: 'invoice-1', payload: '{"invoice": 1}', tag: 'billing' },
      { name: 'invoice-2', payload: '{"invoice": 2}', tag: 'billing' },
      { name: 'resize-1', payload: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]), tag: 'images' },
      { name: 'evil', payload: '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">', tag: 'images' },
    ]);
    await jobs.leaseTasks({ lease: 600, maxTasks: 1, tag: 'billing' });
    // An hour of earlier leases by other processes, as the lease history records them, for the lease chart.
    await h.t.sql(
      `insert into ${h.t.schema}.lease_history (queue_id, leased_at, task_count)
       select $1, now() - m * interval '1 minute', 5 + (m * 7) % 23 from generate_series(1, 58) as m`,
      [jobs.id],
    );
    await h.t.service.getQueue('emails').add(Array.from({ length: 25 }, (_, i) => ({ name: `mail-${i}`, payload: `to ${i}` })));
    // A dead letter in reports: retry limit 1, leased once, lease lapsed, leased again.
    const reports = h.t.service.getQueue('reports');
    await reports.add({ name: 'monthly', payload: 'report', tag: 'finance' });
    for (let i = 0; i < 2; i++) {
      await reports.leaseTasks({ lease: 60, maxTasks: 1 });
      await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '1 second' where name = 'monthly'`);
    }
    await h.console.sampler.sample();

    admin = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    page = await admin.newPage();
    watch(page);
  });

  function watch(p: Page): void {
    p.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // The forged POST below logs its 403 as a failed load; anything else is a problem.
    p.on('console', (message) => {
      if (message.type() === 'error' && !/status of 403/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
  }

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
    await h?.close();
  });

  async function shoot(p: Page, name: string): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await p.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
  }

  async function signIn(p: Page, email: string): Promise<void> {
    await p.goto(`${base}/console`);
    expect(new URL(p.url()).pathname).toBe('/console/sign-in');
    await p.fill('textarea[name=token]', await h.issuer!.mint(email));
    await Promise.all([p.waitForURL(`${base}/console`), p.click('button[type=submit]')]);
  }

  it('signs in and shows the queues, refreshing them on its own', async () => {
    await page.goto(`${base}/console`);
    await shoot(page, 'sign-in');
    await signIn(page, ADMIN);
    await expect.poll(() => page.locator('#queues-table tbody tr').count()).toBe(4);
    expect(await page.textContent('[data-testid=viewer]')).toBe(ADMIN);
    const emails = page.locator('tr[data-queue=emails] td');
    expect(await emails.nth(3).textContent()).toBe('25');
    // A task added elsewhere shows up without a reload.
    await h.t.service.getQueue('emails').add({ name: 'late-mail' });
    await expect.poll(() => emails.nth(3).textContent(), { timeout: 5000 }).toBe('26');
    await shoot(page, 'queues');
  });

  it('opens a queue: charts, tasks filtered by tag, payloads as text', async () => {
    await page.click('a[href="/console/queues/jobs"]');
    await page.waitForSelector('.chart[data-chart=depth] .uplot');
    await page.waitForSelector('.chart[data-chart=lease-rate] .uplot');
    expect(await page.locator('#tasks-table tbody tr').count()).toBe(4);
    // The <script> payload is shown as text and never ran.
    expect(await page.textContent('tr[data-task=evil] code.payload')).toContain('<script>window.pwned = 1</script>');
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.textContent('tr[data-task=resize-1] code.payload')).toBe('89 50 4e 47 00 01 02');
    await shoot(page, 'queue');

    await page.fill('#tag', 'billing');
    await Promise.all([page.waitForURL(/tag=billing/), page.click('form.filter button')]);
    const names = await page.locator('#tasks-table tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-task')));
    expect(names.sort()).toEqual(['invoice-1', 'invoice-2']);
    await page.selectOption('#state', 'leased');
    await Promise.all([page.waitForURL(/state=leased/), page.click('form.filter button')]);
    expect(await page.locator('#tasks-table tbody tr[data-task]').count()).toBe(1);
  });

  it('pauses and resumes the queue', async () => {
    await page.goto(`${base}/console/queues/jobs`);
    await Promise.all([page.waitForURL(/done=pause/), page.click('#queue-actions button:text("Pause")')]);
    expect(await page.textContent('.notice')).toContain('Paused');
    expect(await page.textContent('h1 .badge')).toBe('paused');
    expect(await h.t.service.getQueue('jobs').isPaused()).toBe(true);
    await Promise.all([page.waitForURL(/done=resume/), page.click('#queue-actions button:text("Resume")')]);
    expect(await page.textContent('h1 .badge')).toBe('running');
    expect(await h.t.service.getQueue('jobs').isPaused()).toBe(false);
  });

  it('purges a queue only once its name is typed', async () => {
    await page.goto(`${base}/console/queues/emails`);
    const purge = page.locator('button[data-confirm-button]');
    expect(await purge.isDisabled()).toBe(true);
    await page.fill('#purge-confirm', 'email');
    expect(await purge.isDisabled()).toBe(true);
    await page.fill('#purge-confirm', 'emails');
    expect(await purge.isDisabled()).toBe(false);
    await Promise.all([page.waitForURL(/done=purge/), purge.click()]);
    expect(await page.textContent('.notice')).toBe('Purged 26 tasks.');
    expect(await h.t.service.getQueue('emails').listTasks()).toEqual([]);
    expect(await page.locator('#tombstones-table tbody tr').first().textContent()).toContain('purged');
  });

  it('redrives a dead letter', async () => {
    await page.goto(`${base}/console/queues/reports`);
    expect(await page.locator('tr[data-dead-letter=monthly]').count()).toBe(1);
    await Promise.all([page.waitForURL(/done=redrive/), page.click('tr[data-dead-letter=monthly] button')]);
    expect(await page.textContent('.notice')).toBe('Put back 1 task from the dead letters.');
    expect(await page.locator('tr[data-dead-letter]').count()).toBe(0);
    expect(await page.locator('tr[data-task=monthly]').count()).toBe(1);
  });

  it('lists the actions in the audit log', async () => {
    await page.click('nav a[href="/console/audit"]');
    const rows = await page.locator('#audit-table tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)),
    );
    expect(rows).toEqual([
      [ADMIN, 'redrive', 'reports', 'monthly', '1'],
      [ADMIN, 'purge', 'emails', '', '26'],
      [ADMIN, 'resume', 'jobs', '', '0'],
      [ADMIN, 'pause', 'jobs', '', '0'],
    ]);
    await shoot(page, 'audit');
  });

  it('shows a non-administrator no actions, and the server refuses a forged one', async () => {
    const context = await browser.newContext();
    const reader = await context.newPage();
    watch(reader);
    await signIn(reader, READER);
    expect(await reader.locator('#queues-table tbody tr').count()).toBe(1);
    await reader.click('a[href="/console/queues/jobs"]');
    await reader.waitForSelector('#tasks-table');
    expect(await reader.locator('#queue-actions').count()).toBe(0);
    expect(await reader.locator('form[action*="/console/queues/"][method=post]').count()).toBe(0);
    // A hand-made POST with the reader's own session and CSRF token: refused, nothing purged.
    const csrf = await reader.locator('input[name=_csrf]').first().inputValue();
    const status = await reader.evaluate(async (csrf) => {
      const response = await fetch('/console/queues/jobs/purge', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, confirm: 'jobs' }).toString(),
      });
      return response.status;
    }, csrf);
    expect(status).toBe(403);
    expect(await h.t.service.getQueue('jobs').listTasks()).toHaveLength(4);
    await context.close();
    expect(problems).toEqual([]);
  });
});
