import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mountConsole, type MountedConsole } from '../../src/console/mount-console.js';
import { parseCronText } from '../../src/config/load-cron-config.js';
import type { WiringOptions } from '../../src/open-task-queue.js';
import { serviceConfig } from '../helpers/configs.js';
import { openTestService, type TestService } from '../helpers/engines.js';
import { FakeCronClock, until } from '../cron/fire/fake-cron-clock.js';

/** The cron pages on a 375 px phone in Debian's chromium: long URLs and schedules wrap, nothing scrolls sideways. */
const LONG_URL = `/reports/${'monthly-revenue-by-region-and-product-line/'.repeat(4)}run?format=csv&include=everything`;

let t: TestService;
let mounted: MountedConsole;
let server: ServerType;
let browser: Browser;
let base: string;

beforeAll(async () => {
  const clock = new FakeCronClock('2026-03-01T09:00:30Z');
  const cron = parseCronText(
    `cron:\n- name: a-job-with-a-rather-long-name-for-a-phone\n  url: ${LONG_URL}\n  schedule: 1st,3rd monday of sep,oct,nov 17:00\n  timezone: America/Argentina/ComodRivadavia\n`,
    'cron.yaml',
    'yaml',
  );
  [t, browser] = await Promise.all([
    openTestService('postgres', serviceConfig([]), {
      open: { cron, dispatch: false, pushBaseUrl: 'http://127.0.0.1:9', cronClock: clock } as WiringOptions,
    }),
    chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      chromiumSandbox: false,
      args: ['--no-sandbox'],
    }),
  ]);
  await until(() => clock.waiting);
  const service = t.service;
  const app = new Hono();
  mounted = mountConsole(app, {
    service,
    auditLog: service.auditLog,
    cronJobs: () => service.cronJobs(),
    cron: {
      history: (name, limit) => service.cronHistory(name, limit),
      run: (name, who) => service.runCronJob(name, who),
    },
  });
  await service.runCronJob('a-job-with-a-rather-long-name-for-a-phone');
  server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((done) => (server.listening ? done() : server.once('listening', () => done())));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((done) => server?.close(done));
  await mounted?.close();
  await t?.close();
});

it('the cron list and a job page fit a 375 px phone', async () => {
  const phone = await browser.newContext({ viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true });
  const page = await phone.newPage();
  for (const path of ['/console/cron', '/console/cron/a-job-with-a-rather-long-name-for-a-phone']) {
    await page.goto(`${base}${path}`);
    expect(await page.locator('body').textContent()).toContain('monthly-revenue-by-region');
    expect(await page.evaluate('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(375);
  }
  await phone.close();
});
