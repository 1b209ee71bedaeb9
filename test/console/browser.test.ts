import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { serve, type ServerType } from '@hono/node-server';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, READER, openConsoleHarness, type ConsoleHarness } from './console-harness.js';

/**
 * The console in a real browser: Debian's chromium (never a downloaded
 * one), headless, driven by playwright-core. One browser and one server for
 * the file; each step is what an operator would do. The browser's zone is
 * Paris, so "local time" differs from UTC.
 */
const CHROMIUM = '/usr/bin/chromium';
/** Set to a folder (docs/console) to save screenshots of the main pages there. */
const SCREENSHOTS = process.env.TASKQUEUE_CONSOLE_SCREENSHOTS;
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

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
      // Push tasks of `default` stay where the test puts them: nothing dispatches, nothing listens at the base URL.
      openConsoleHarness('postgres', {
        refreshSeconds: 1,
        sampleIntervalSeconds: 1,
        open: { dispatch: false, pushBaseUrl: 'http://127.0.0.1:9/app' },
      }),
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
      { name: 'invoice-1', payload: '{"invoice": 1, "lines": [{"sku": "A-1", "qty": 2}]}', tag: 'billing' },
      { name: 'invoice-2', payload: '{"invoice": 2}', tag: 'billing' },
      { name: 'resize-1', payload: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]), tag: 'images' },
      {
        name: 'evil',
        payload: '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">',
        tag: 'images',
      },
    ]);
    await jobs.leaseTasks({ lease: 600, maxTasks: 1, tag: 'billing' });
    // An hour of earlier leases by other processes, as the lease history records them, for the lease chart.
    await h.t.sql(
      `insert into ${h.t.schema}.lease_history (queue_id, leased_at, task_count)
       select $1, now() - m * interval '1 minute', 5 + (m * 7) % 23 from generate_series(1, 58) as m`,
      [jobs.id],
    );
    // And an hour of depth samples, as the service would have kept them.
    await h.t.sql(
      `insert into ${h.t.schema}.queue_depth_samples (queue, at, available, leased, delayed)
       select 'jobs', date_trunc('minute', now()) - m * interval '1 minute', 3 + m % 4, 1, m % 2 from generate_series(1, 59) as m`,
    );
    await h.t.service
      .getQueue('emails')
      .add(Array.from({ length: 25 }, (_, i) => ({ name: `mail-${i}`, payload: `to ${i}` })));
    // A dead letter in reports: retry limit 1, leased once, lease lapsed, leased again.
    const reports = h.t.service.getQueue('reports');
    await reports.add({ name: 'monthly', payload: 'report', tag: 'finance' });
    for (let i = 0; i < 2; i++) {
      await reports.leaseTasks({ lease: 60, maxTasks: 1 });
      await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '1 second' where name = 'monthly'`);
    }
    await h.console.sampler.sample();

    admin = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Europe/Paris' });
    page = await admin.newPage();
    watch(page);
  });

  function watch(p: Page): void {
    p.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // The forged POST below logs its 403, the cut-off server its failed loads; anything else is a problem.
    p.on('console', (message) => {
      if (message.type() === 'error' && !/status of 403|ERR_FAILED/.test(message.text()))
        problems.push(`console: ${message.text()}`);
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

  async function signIn(p: Page, email: string, at = '/console'): Promise<void> {
    await p.goto(`${base}${at}`);
    expect(new URL(p.url()).pathname).toBe('/console/sign-in');
    await p.fill('textarea[name=token]', await h.issuer!.mint(email));
    await Promise.all([p.waitForURL(`${base}${at}`), p.click('form[action="/console/sign-in"] button[type=submit]')]);
  }

  const queueOrder = (p: Page) =>
    p
      .locator('#queues-table tbody tr')
      .evaluateAll((rows) =>
        rows.filter((r) => !(r as unknown as { hidden: boolean }).hidden).map((r) => r.getAttribute('data-queue')),
      );

  it('signs in and lists problem queues first, sortable and filtered by name, refreshing on its own', async () => {
    await page.goto(`${base}/console`);
    await shoot(page, 'sign-in');
    await signIn(page, ADMIN);
    expect(await page.textContent('[data-testid=viewer]')).toBe(ADMIN);
    // The dead letter's queue first; the summary says why.
    expect(await queueOrder(page)).toEqual(['reports', 'default', 'jobs', 'emails']);
    expect(await page.textContent('#queues-summary')).toBe(
      '4 queues, 29 tasks, 1 dead letter. Needs attention: dead letters arriving in 1 queue.',
    );
    // A task added elsewhere shows up without a reload; the freshness says when.
    const emails = page.locator('tr[data-queue=emails] td:nth-child(3)');
    expect(await emails.textContent()).toBe('25');
    await h.t.service.getQueue('emails').add({ name: 'late-mail' });
    await expect.poll(() => emails.textContent()).toBe('26');
    expect(await page.getAttribute('#freshness', 'class')).toBe('fresh');
    // Sorted by available, biggest first (ties keep their order), and still so after the next refresh swaps the table.
    await page.click('th[data-sort-key=available] button');
    expect(await queueOrder(page)).toEqual(['emails', 'jobs', 'reports', 'default']);
    expect(await page.getAttribute('th[data-sort-key=available]', 'aria-sort')).toBe('descending');
    // A refresh that changes the table keeps the sort and the keyboard where they were; one that changes nothing is a 304.
    await page.focus('th[data-sort-key=available] button');
    await page.locator('#queues-live').evaluate((live) => live.setAttribute('data-seen', '1'));
    await h.t.service.getQueue('emails').add({ name: 'later-mail' });
    await expect.poll(() => page.getAttribute('#queues-live', 'data-seen')).toBeNull();
    expect(await page.evaluate(`document.activeElement?.getAttribute('data-sort-by')`)).toBe('available');
    expect(await queueOrder(page)).toEqual(['emails', 'jobs', 'reports', 'default']);
    expect(await page.textContent('#announce')).toContain('31 tasks');
    expect(await page.getAttribute('#freshness', 'role')).toBeNull();
    const statuses: number[] = [];
    page.on('response', (r) => r.url() === `${base}/console` && statuses.push(r.status()));
    await expect.poll(() => statuses.includes(304)).toBe(true);
    // The skip link is the first stop of the keyboard, and leads to the page's own content.
    await page.reload();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to main content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement?.id')).toBe('main');
    // "Sort by" (the phone's way to sort): by a column, and back to what needs attention first.
    await page.selectOption('#queues-sort', 'available');
    expect(await queueOrder(page)).toEqual(['emails', 'jobs', 'reports', 'default']);
    await page.selectOption('#queues-sort', 'rank');
    expect(await queueOrder(page)).toEqual(['reports', 'default', 'jobs', 'emails']);
    await page.fill('#queue-filter', 'RE');
    expect(await queueOrder(page)).toEqual(['reports']);
    await page.fill('#queue-filter', '');
    await page.reload();
    await shoot(page, 'queues');
  });

  it('says when the server cannot be reached, and when the session ended, and returns to the page after sign-in', async () => {
    await page.goto(`${base}/console/queues/jobs`);
    await page.route('**/console/queues/jobs', (route) => route.abort());
    await page.waitForSelector('#banner:not([hidden])');
    expect(await page.textContent('#banner')).toContain('Cannot reach the server');
    expect(await page.getAttribute('#freshness', 'class')).toBe('stale');
    await page.unroute('**/console/queues/jobs');
    await page.waitForSelector('#banner', { state: 'hidden' });

    // The token stops working (expired, revoked): the next refresh is sent to sign-in.
    await admin.clearCookies();
    await admin.addCookies([
      { name: 'taskqueue_console', value: 'expired.token', domain: '127.0.0.1', path: '/console' },
    ]);
    await page.waitForSelector('#banner:not([hidden])');
    expect(await page.textContent('#banner')).toContain('Session ended');
    expect(await page.getAttribute('#freshness', 'class')).toBe('stale');
    await page.click('#banner a');
    expect(await page.textContent('#sign-in-reason')).toContain('Your session ended');
    await page.fill('textarea[name=token]', await h.issuer!.mint(ADMIN));
    await Promise.all([
      page.waitForURL(`${base}/console/queues/jobs`),
      page.click('form[action="/console/sign-in"] button[type=submit]'),
    ]);
  });

  it("opens a queue: figures and charts over the same hour, each task's state, times in the chosen zone", async () => {
    await page.goto(`${base}/console/queues/jobs`);
    await page.waitForSelector('.chart[data-chart=depth] .uplot');
    await page.waitForSelector('.chart[data-chart=lease-rate] .uplot');
    // Whole numbers on the axes, however few the tasks.
    for (const chart of ['depth', 'lease-rate']) {
      const ticks = (await page.getAttribute(`.chart[data-chart=${chart}]`, 'data-y-ticks'))!.split(' ').map(Number);
      expect(ticks.length).toBeGreaterThan(1);
      expect(ticks.every((t) => Number.isInteger(t))).toBe(true);
    }
    expect(Number(await page.getAttribute('.chart[data-chart=depth]', 'data-drawn'))).toBeGreaterThan(50);
    const states = await page
      .locator('#tasks-table tbody tr')
      .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-task'), r.getAttribute('data-state')]));
    expect(Object.fromEntries(states)).toEqual({
      'invoice-1': 'leased',
      'invoice-2': 'available',
      'resize-1': 'available',
      evil: 'available',
    });
    expect(await page.locator('#tasks-table button:text("Release")').count()).toBe(1);
    expect(await page.locator('tr[data-task=invoice-1] button:text("Release")').count()).toBe(1);
    // A lease that ends between refreshes takes its Release with it at once (here: the end moved to now)...
    await page.locator('tr[data-task=invoice-1] [data-lease-ends]').evaluate((e) => {
      e.setAttribute('data-lease-ends', String(Date.now()));
    });
    await page.waitForSelector('tr[data-task=invoice-1] button:text("Release")', { state: 'hidden' });
    expect(await page.getAttribute('tr[data-task=invoice-1]', 'data-state')).toBe('available');
    // ...and the next refresh brings the row as the database has it: leased again, Release back.
    await page.locator('#tasks-table').evaluate((t) => t.setAttribute('data-seen', '1'));
    await h.t.sql(`update ${h.t.schema}.tasks set eta = eta + interval '1 second' where name = 'invoice-1'`);
    await expect.poll(() => page.getAttribute('#tasks-table', 'data-seen')).toBeNull();
    expect(await page.locator('tr[data-task=invoice-1] button:text("Release")').isVisible()).toBe(true);
    // The <script> payload is shown as text and never ran.
    expect(await page.textContent('tr[data-task=evil] code.payload')).toContain('<script>window.pwned = 1</script>');
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    const lease = page.locator('tr[data-task=invoice-1] time');
    expect(await lease.textContent()).toMatch(/^in (9|10) min$/);
    expect(await lease.getAttribute('title')).toMatch(/UTC$/);
    await shoot(page, 'queue');
    await page.selectOption('#time-zone', 'local');
    expect(await lease.getAttribute('title')).toMatch(/GMT\+1$/);
    await page.reload();
    expect(await page.locator('tr[data-task=invoice-1] time').getAttribute('title')).toMatch(/GMT\+1$/);
    await page.selectOption('#time-zone', 'UTC');

    await page.click('tr[data-task=invoice-1] a');
    expect(await page.textContent('#payload-text')).toContain('"lines": [\n    {\n      "sku": "A-1"');
    expect(await page.textContent('#task-details')).toContain('1 lease so far');
    await shoot(page, 'task');
  });

  it('asks before pausing, deleting or redriving, saying how many; shows who paused', async () => {
    await page.goto(`${base}/console/queues/jobs`);
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.dismiss();
    });
    await page.click('#queue-actions button:text("Pause")');
    expect(asked).toBe('Pause jobs? Leases will return none of its 3 available tasks until it is resumed.');
    expect(await h.t.service.getQueue('jobs').isPaused()).toBe(false);
    page.once('dialog', (dialog) => void dialog.accept());
    await Promise.all([page.waitForURL(/done=pause/), page.click('#queue-actions button:text("Pause")')]);
    expect(await page.textContent('#paused-by')).toMatch(/^Paused by admin@example\.com \(console\) now/);
    expect(await h.t.service.getQueue('jobs').isPaused()).toBe(true);
    await Promise.all([page.waitForURL(/done=resume/), page.click('#queue-actions button:text("Resume")')]);
    expect(await page.textContent('h1 .badge')).toBe('running');

    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.dismiss();
    });
    await page.click('tr[data-task=invoice-2] button:text("Delete")');
    expect(asked).toBe('Delete task invoice-2? This cannot be undone.');
    expect(await page.locator('tr[data-task=invoice-2]').count()).toBe(1);

    // Two tasks selected, reviewed on the server's page, deleted.
    await page.check('tr[data-task=invoice-2] input[type=checkbox]');
    await page.check('tr[data-task=evil] input[type=checkbox]');
    await page.selectOption('#bulk-tasks-op', 'delete');
    await page.click('#bulk-tasks button');
    expect(await page.textContent('h1')).toBe('Delete 2 tasks of jobs?');
    await Promise.all([page.waitForURL(/done=delete&n=2/), page.click('form.actions button[type=submit]')]);
    expect(await page.textContent('.notice')).toBe('Deleted 2 tasks.');
    expect(await page.locator('#tasks-table tbody tr[data-task]').count()).toBe(2);

    await page.goto(`${base}/console/queues/reports/dead-letters`);
    expect(await page.textContent('nav.tabs a[aria-current=page]')).toBe('Dead letters (1)');
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await Promise.all([
      page.waitForURL(/dead-letters\?done=redrive/),
      page.click('tr[data-dead-letter=monthly] button'),
    ]);
    expect(asked).toBe('Put monthly back in the queue?');
    expect(await page.textContent('.notice')).toBe('Put back 1 task from the dead letters.');
    expect(await page.locator('tr[data-dead-letter]').count()).toBe(0);
  });

  it('purges a queue only once its name is typed', async () => {
    await page.goto(`${base}/console/queues/emails`);
    const purge = page.locator('button[data-confirm-button]');
    expect(await page.textContent('label[for=purge-confirm]')).toBe('Type the queue name to purge all 27 tasks:');
    expect(await purge.isDisabled()).toBe(true);
    await page.fill('#purge-confirm', 'email');
    expect(await purge.isDisabled()).toBe(true);
    await page.fill('#purge-confirm', 'emails');
    await Promise.all([page.waitForURL(/done=purge/), purge.click()]);
    expect(await page.textContent('.notice')).toBe('Purged 27 tasks.');
    expect(await h.t.service.getQueue('emails').listTasks()).toEqual([]);
  });

  it('lists the actions in the audit log, filtered by action', async () => {
    await page.click('nav a[href="/console/audit"]');
    const rows = () =>
      page
        .locator('#audit-table tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
    expect(await rows()).toEqual([
      [ADMIN, 'purge', 'emails', '', '27', 'console'],
      [ADMIN, 'redrive dead letters', 'reports', 'monthly', '1', 'console'],
      [ADMIN, 'delete tasks', 'jobs', '2 tasksevilinvoice-2', '2', 'console'],
      [ADMIN, 'resume', 'jobs', '', '0', 'console'],
      [ADMIN, 'pause', 'jobs', '', '0', 'console'],
    ]);
    // A bulk entry's names are folded; a click on its summary shows them.
    const named = page.locator('details.audit-names li', { hasText: 'invoice-2' });
    expect(await named.isVisible()).toBe(false);
    await page.click('details.audit-names summary');
    expect(await named.isVisible()).toBe(true);
    await shoot(page, 'audit');
    await page.selectOption('#audit-action', 'pause');
    await Promise.all([page.waitForURL(/action=pause/), page.click('#audit-filter button')]);
    expect(await rows()).toEqual([[ADMIN, 'pause', 'jobs', '', '0', 'console']]);
  });

  it('lays the pages out as cards on a phone, in dark mode too', async () => {
    const phone = await browser.newContext({
      viewport: { width: 375, height: 812 },
      isMobile: true,
      hasTouch: true,
      colorScheme: 'dark',
    });
    const p = await phone.newPage();
    watch(p);
    await signIn(p, ADMIN, '/console/queues/jobs');
    for (const path of ['/console', '/console/queues/jobs']) {
      await p.goto(`${base}${path}`);
      // Nothing wider than the screen; each row a card with labelled fields.
      expect(await p.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      const table = path === '/console' ? '#queues-table' : '#tasks-table';
      expect(
        await p.locator(`${table} thead`).evaluate((thead) => thead.getBoundingClientRect().height),
      ).toBeLessThanOrEqual(1);
      expect(await p.evaluate(`getComputedStyle(document.querySelector('${table} tbody tr')).display`)).toBe(
        path === '/console' ? 'grid' : 'block',
      );
      expect(await p.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(20, 24, 31)');
      await shoot(p, path === '/console' ? 'phone-queues' : 'phone-queue');
    }
    // 131 queues (the rows here, copied) as compact cards: about 70 px each, not 250; the header fits.
    await p.goto(`${base}/console`);
    expect(await p.isVisible('#queues-sort')).toBe(true);
    const height = Number(
      await p.evaluate(`(() => {
        const body = document.querySelector('#queues-table tbody');
        const rows = [...body.querySelectorAll('tr')];
        for (let i = rows.length; i < 131; i++) body.append(rows[i % rows.length].cloneNode(true));
        return document.documentElement.scrollHeight;
      })()`),
    );
    expect(height).toBeLessThan(131 * 90);
    expect(await p.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await p.evaluate(`document.querySelector('header.top').scrollWidth`)).toBeLessThanOrEqual(375);
    console.log(`queues page at 375 px, 131 queues: ${height} px`);
    await phone.close();
  });

  it('shows a push queue: its dispatch, each task where its delivery stands, secret headers masked', async () => {
    await h.t.service.getQueue('default').add([
      {
        name: 'welcome-mail',
        url: '/tasks/mail',
        payload: '{"user": 42}',
        headers: { 'Content-Type': 'application/json' },
      },
      { name: 'nightly-report', url: '/tasks/report', countdownSeconds: 3600 },
      {
        name: 'charge-card',
        url: '/tasks/charge',
        payload: '{"order": 7}',
        headers: { Authorization: 'Bearer sk_live_not_for_eyes', 'X-Request-Id': 'r-981' },
      },
      { name: 'sync-crm', url: '/tasks/sync?full=1', method: 'PUT', payload: 'full' },
    ]);
    // As dispatchers leave them: one failed three times, one in flight; the bucket as the last claim left it.
    await h.t.sql(
      `update ${h.t.schema}.tasks set retry_count = 3, execution_count = 3, last_status = 500, last_error = 'HTTP 500',
              eta = now() + interval '40 seconds' where name = 'charge-card'`,
    );
    await h.t.sql(
      `update ${h.t.schema}.tasks set retry_count = 1, dispatched_at = now(), eta = now() + interval '610 seconds' where name = 'sync-crm'`,
    );
    await h.t.sql(
      `insert into ${h.t.schema}.push_queue_state (queue_id, tokens, refilled_at) select id, 2, now() from ${h.t.schema}.queues where name = 'default'`,
    );
    await page.goto(`${base}/console`);
    expect(await page.textContent('tr[data-queue=default] .badge.mode-push')).toBe('push');
    await page.goto(`${base}/console/queues/default`);
    const states = await page
      .locator('#tasks-table tbody tr')
      .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-task'), r.getAttribute('data-state')]));
    expect(Object.fromEntries(states)).toEqual({
      'welcome-mail': 'waiting',
      'charge-card': 'retrying',
      'sync-crm': 'in flight',
      'nightly-report': 'scheduled',
    });
    expect(await page.textContent('#queue-figures')).toMatch(/Tokens now\d/);
    expect(await page.textContent('tr[data-task=charge-card] .last-status')).toBe('500');
    await shoot(page, 'push-queue');
    await page.click('tr[data-task=charge-card] a');
    expect(await page.textContent('#push-headers')).toContain('Authorization: (hidden)');
    expect(await page.textContent('#push-headers')).toContain('X-Request-Id: r-981');
    expect(await page.content()).not.toContain('sk_live');
    await shoot(page, 'push-task');
  });

  it('has no serious accessibility violation (axe-core), light and dark', async () => {
    // Only this context lets a script in from outside the console (axe, injected by the test).
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
    const p = await context.newPage();
    await p.goto(`${base}/console/sign-in`);
    const found: string[] = [];
    const check = async (path: string) => {
      await p.goto(`${base}${path}`);
      await p.addScriptTag({ path: AXE });
      const outcome = await p.evaluate(async () => {
        const axe = (
          globalThis as unknown as {
            axe: {
              run(
                context: unknown,
                options: unknown,
              ): Promise<{
                passes: unknown[];
                violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
              }>;
            };
          }
        ).axe;
        const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
        });
        return {
          passes: result.passes.length,
          violations: result.violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 3),
          })),
        };
      });
      // axe ran (its checks passed somewhere), and found nothing serious.
      expect(outcome.passes).toBeGreaterThan(10);
      const violations = outcome.violations;
      for (const v of violations)
        if (v.impact === 'serious' || v.impact === 'critical')
          found.push(`${path}: ${v.id} (${v.impact}) at ${v.targets.join(', ')}`);
    };
    await check('/console/sign-in');
    await p.fill('textarea[name=token]', await h.issuer!.mint(ADMIN));
    await Promise.all([
      p.waitForURL(`${base}/console`),
      p.click('form[action="/console/sign-in"] button[type=submit]'),
    ]);
    for (const path of [
      '/console',
      '/console/queues/jobs',
      '/console/queues/jobs/tasks/invoice-1',
      '/console/queues/jobs/search?name=invoice',
      '/console/queues/reports/dead-letters',
      '/console/audit',
      '/console/queues/default',
      '/console/queues/default/tasks/charge-card',
    ]) {
      await check(path);
    }
    // Dark mode changes colours only: the two pages with the most of them.
    await p.emulateMedia({ colorScheme: 'dark' });
    for (const path of ['/console', '/console/queues/jobs']) await check(path);
    await context.close();
    expect(found).toEqual([]);
    // Ten pages through axe: about 35 s alone, more on a loaded two-core machine.
  }, 120_000);

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
    expect(await h.t.service.getQueue('jobs').listTasks()).toHaveLength(2);
    await context.close();
    expect(problems).toEqual([]);
  });
});
