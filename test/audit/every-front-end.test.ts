import { serve, type ServerType } from '@hono/node-server';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/core/audit-log.js';
import { cli } from '../cli/cli-harness.js';
import { ADMIN, browser, csrfOf, openConsoleHarness, type ConsoleHarness } from '../console/console-harness.js';
import { testPgUrl } from '../helpers/engines.js';

/**
 * The audit promise, kept whichever way an operator comes: every action
 * that changes a queue, driven through the console, the admin REST routes,
 * and the CLI (on the database and over a server), is read back from the
 * audit log with its actor, source, target and count.
 */
describe('every operator action from every front-end is in the audit log', () => {
  let h: ConsoleHarness;
  let server: ServerType;
  let url: string;
  let token: string;
  let dir: string;
  beforeAll(async () => {
    h = await openConsoleHarness('postgres');
    token = await h.issuer!.mint(ADMIN);
    server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'taskqueue-audit-'));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await h.t.sql(`delete from ${h.t.schema}.tasks`);
    await h.t.sql(`delete from ${h.t.schema}.task_tombstones`);
    await h.t.sql(`delete from ${h.t.schema}.task_dead_letters`);
    await h.t.sql(`delete from ${h.t.schema}.audit_log`);
  });

  const jobs = () => h.t.service.getQueue('jobs');
  /** A dead letter (jobs drops a task at its third lease), a leased task, and one more. */
  async function prepare(): Promise<void> {
    await jobs().add({ name: 'doomed' });
    for (let i = 0; i < 3; i++) {
      await jobs().leaseTasks({ lease: 60, maxTasks: 10 });
      await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '1 second'`);
    }
    await jobs().add([{ name: 'held' }, { name: 'gone' }]);
    expect((await jobs().leaseTasks({ lease: 3600, maxTasks: 1 })).map((task) => task.name)).toEqual(['held']);
  }
  /** Purged names are held; an import of the same names needs them free. */
  const freeNames = () => h.t.sql(`delete from ${h.t.schema}.task_tombstones`);
  async function log(): Promise<[string, string, string, string | null, number][]> {
    const entries: AuditEntry[] = await h.audit.list({ limit: 100 });
    return entries.reverse().map((e) => [e.source, e.actor, e.action, e.target, e.count]);
  }

  it('through the console', async () => {
    await prepare();
    const b = browser(h);
    await b.signIn(ADMIN);
    const csrf = csrfOf(await b.send('/console/queues/jobs'));
    const act = async (action: string, form: Record<string, string> = {}) =>
      expect((await b.send(`/console/queues/jobs/${action}`, { form: { _csrf: csrf, ...form } })).status).toBe(303);
    await act('pause');
    await act('resume');
    await act('release', { task: 'held' });
    await act('redrive', { task: 'doomed' });
    await act('delete', { task: 'gone' });
    await act('purge', { confirm: 'jobs' });
    expect(await log()).toEqual([
      ['console', ADMIN, 'pause', null, 0],
      ['console', ADMIN, 'resume', null, 0],
      ['console', ADMIN, 'release_lease', 'held', 1],
      ['console', ADMIN, 'redrive', 'doomed', 1],
      ['console', ADMIN, 'delete_task', 'gone', 1],
      ['console', ADMIN, 'purge', null, 2],
    ]);
  });

  it('through the console, on a selection: one entry per action, counting only what was done', async () => {
    await prepare();
    const b = browser(h);
    await b.signIn(ADMIN);
    const csrf = csrfOf(await b.send('/console/queues/jobs'));
    const bulk = async (op: string, names: string[]) => {
      const fields: [string, string][] = [
        ['_csrf', csrf],
        ['op', op],
        ['confirm', String(names.length)],
        ...names.map((name): [string, string] => ['task', name]),
      ];
      const response = await b.send('/console/queues/jobs/bulk', { form: fields });
      expect(response.status).toBe(303);
      return response.headers.get('location');
    };
    // 'gone' is not leased: released is 'held' alone (n); `of` is how many were selected.
    expect(await bulk('release', ['held', 'gone'])).toBe('/console/queues/jobs?done=release&n=1&of=2');
    expect(await bulk('release', ['gone'])).toBe('/console/queues/jobs?done=release&n=0&of=1');
    expect(await bulk('redrive', ['doomed', 'never-died'])).toBe(
      '/console/queues/jobs/dead-letters?done=redrive&n=1&of=2',
    );
    expect(await bulk('delete', ['held', 'gone', 'doomed', 'never-was'])).toBe(
      '/console/queues/jobs?done=delete&n=3&of=4',
    );
    // A task dies again and is deleted for good from the dead letters.
    await jobs().add({ name: 'doomed-again' });
    for (let i = 0; i < 3; i++) {
      await jobs().leaseTasks({ lease: 60, maxTasks: 10 });
      await h.t.sql(`update ${h.t.schema}.tasks set eta = now() - interval '1 second'`);
    }
    expect(await bulk('forget', ['doomed-again', 'never-died'])).toBe(
      '/console/queues/jobs/dead-letters?done=forget&n=1&of=2',
    );
    expect(await h.t.operate('jobs').listDeadLetters({ limit: 10 })).toEqual([]);
    expect(await log()).toEqual([
      ['console', ADMIN, 'release_lease', null, 1],
      ['console', ADMIN, 'release_lease', 'gone', 0],
      ['console', ADMIN, 'redrive', null, 1],
      ['console', ADMIN, 'delete_task', null, 3],
      ['console', ADMIN, 'delete_dead_letters', null, 1],
    ]);
  });

  it('through the admin REST routes', async () => {
    await prepare();
    const admin = `${url}/taskqueue/admin/v1/taskqueues/jobs`;
    const call = async (method: string, path: string, body?: string, type = 'application/json') => {
      const response = await fetch(`${admin}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': type }) },
        ...(body === undefined ? {} : { body }),
      });
      expect(response.status, `${method} ${path}`).toBe(200);
      return response.text();
    };
    await call('POST', '/pause');
    await call('POST', '/resume');
    await call('POST', '/tasks/held/release');
    await call('POST', '/deadLetters/redrive', JSON.stringify({ names: ['doomed'] }));
    await call('POST', '/tasks/delete', JSON.stringify({ names: ['gone'] }));
    const exported = await call('GET', '/tasks/export');
    await call('POST', '/purge');
    await freeNames();
    await call('POST', '/tasks/import', exported, 'application/x-ndjson');
    expect(await log()).toEqual([
      ['rest', ADMIN, 'pause', null, 0],
      ['rest', ADMIN, 'resume', null, 0],
      ['rest', ADMIN, 'release_lease', 'held', 1],
      ['rest', ADMIN, 'redrive', 'doomed', 1],
      ['rest', ADMIN, 'delete_task', 'gone', 1],
      ['rest', ADMIN, 'export_tasks', null, 2],
      ['rest', ADMIN, 'purge', null, 2],
      ['rest', ADMIN, 'import_tasks', null, 2],
    ]);
  });

  it('through the CLI, on the database and over a server', async () => {
    const file = join(dir, 'export.jsonl');
    for (const [source, actor, env] of [
      ['cli', 'cli:operator', { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: h.t.schema, USER: 'operator' }],
      ['rest', ADMIN, { TASKQUEUE_URL: url, TASKQUEUE_TOKEN: token }],
    ] as const) {
      await h.t.sql(`delete from ${h.t.schema}.audit_log`);
      await h.t.sql(`delete from ${h.t.schema}.tasks`);
      await h.t.sql(`delete from ${h.t.schema}.task_tombstones`);
      await prepare();
      const run = async (...argv: string[]) => expect((await cli(argv, env)).code, argv.join(' ')).toBe(0);
      await run('pause', 'jobs');
      await run('resume', 'jobs');
      await run('redrive', 'jobs', 'doomed');
      await run('delete', 'jobs', 'gone');
      const exported = await cli(['export', 'jobs'], env);
      writeFileSync(file, exported.outBytes);
      await run('purge', 'jobs', '--yes');
      await freeNames();
      await run('import', 'jobs', '--file', file);
      expect(await log(), source).toEqual([
        [source, actor, 'pause', null, 0],
        [source, actor, 'resume', null, 0],
        [source, actor, 'redrive', 'doomed', 1],
        [source, actor, 'delete_task', 'gone', 1],
        [source, actor, 'export_tasks', null, 2],
        [source, actor, 'purge', null, 2],
        [source, actor, 'import_tasks', null, 2],
      ]);
    }
  });

  it('run now, from the console, the admin REST routes and the CLI: one run_now entry each, naming its tasks', async () => {
    /** A leased task, two delayed ones of tag x and one of tag y. */
    const later = async () => {
      await h.t.sql(`delete from ${h.t.schema}.tasks`);
      await jobs().add([
        { name: 'held' },
        { name: 'later-a', tag: 'x', countdownSeconds: 3600 },
        { name: 'later-b', tag: 'x', countdownSeconds: 3600 },
        { name: 'later-c', tag: 'y', countdownSeconds: 3600 },
      ]);
      expect((await jobs().leaseTasks({ lease: 3600, maxTasks: 1 })).map((task) => task.name)).toEqual(['held']);
    };
    const runs = async () =>
      (await h.audit.list({ limit: 100, actions: ['run_now'] }))
        .reverse()
        .map((e) => [e.source, e.actor, e.target, e.count, [...e.names].sort()]);

    await later();
    const b = browser(h);
    await b.signIn(ADMIN);
    const csrf = csrfOf(await b.send('/console/queues/jobs'));
    const post = async (path: string, form: Record<string, string> | [string, string][]) =>
      expect((await b.send(`/console/queues/jobs/${path}`, { form })).status, path).toBe(303);
    await post('run', { _csrf: csrf, task: 'held' });
    await post('bulk', [
      ['_csrf', csrf],
      ['op', 'run'],
      ['confirm', '2'],
      ['task', 'later-a'],
      ['task', 'never-was'],
    ]);
    await post('run-matching', { _csrf: csrf, state: 'delayed', tag: 'x', confirm: '1' });
    expect(await runs()).toEqual([
      ['console', ADMIN, 'held', 1, ['held']],
      ['console', ADMIN, null, 1, ['later-a']],
      ['console', ADMIN, null, 1, ['later-b']],
    ]);

    await h.t.sql(`delete from ${h.t.schema}.audit_log`);
    await later();
    const runNow = async (body: unknown) => {
      const response = await fetch(`${url}/taskqueue/admin/v1/taskqueues/jobs/tasks/runNow`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { ran: number }).ran;
    };
    expect(await runNow({ names: ['held'] })).toBe(1);
    expect(await runNow({ filter: { state: 'delayed' }, dryRun: true })).toBe(3);
    expect(await runNow({ filter: { state: 'delayed' } })).toBe(3);
    expect(await runs()).toEqual([
      ['rest', ADMIN, 'held', 1, ['held']],
      ['rest', ADMIN, null, 3, ['later-a', 'later-b', 'later-c']],
    ]);

    for (const [source, actor, env] of [
      ['cli', 'cli:operator', { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: h.t.schema, USER: 'operator' }],
      ['rest', ADMIN, { TASKQUEUE_URL: url, TASKQUEUE_TOKEN: token }],
    ] as const) {
      await h.t.sql(`delete from ${h.t.schema}.audit_log`);
      await later();
      const run = async (...argv: string[]) => expect((await cli(argv, env)).code, argv.join(' ')).toBe(0);
      await run('run-now', 'jobs', 'held', 'later-c');
      await run('run-now', 'jobs', '--all', '--tag', 'x', '--dry-run');
      await run('run-now', 'jobs', '--all', '--tag', 'x');
      expect(await runs(), source).toEqual([
        [source, actor, null, 2, ['held', 'later-c']],
        [source, actor, null, 2, ['later-a', 'later-b']],
      ]);
    }
  });
});
