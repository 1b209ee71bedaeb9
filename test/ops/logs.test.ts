import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTokenCommand } from '../../src/cli/commands/token.js';
import { migrate } from '../../src/store/migrate/migrate.js';
import { openDatabase } from '../../src/store/engine/database.js';
import { testPgUrl } from '../helpers/engines.js';
import { LEVEL, startOpsServer, type LogLine, type OpsServer } from './ops-harness.js';

const ADMIN = 'ops@example.com';
const SECRET_PAYLOAD = 'TOP-SECRET-PAYLOAD-7731';

function requestLines(lines: readonly LogLine[]): LogLine[] {
  return lines.filter((line) => line.msg === 'request' || line.msg === 'request failed');
}

describe('server logs (pino, captured)', () => {
  let s: OpsServer;
  let token: string;
  beforeAll(async () => {
    s = await startOpsServer({ env: { TASKQUEUE_AUTH: 'on', TASKQUEUE_ADMINS: ADMIN } });
    token = await runTokenCommand(['--email', ADMIN, '--database-url', testPgUrl(), '--schema', s.schema], {});
  });
  afterAll(async () => {
    await s.close();
  });

  const auth = () => ({ authorization: `Bearer ${token}` });

  it('says at start: config loaded, migrations applied, and where it listens, with administrators and how to get a token', () => {
    const msgs = s.lines.map((line) => line.msg);
    expect(msgs).toContain('config loaded');
    expect(s.lines.find((line) => line.msg === 'migrations applied')?.applied).toEqual(expect.arrayContaining([1, 9]));
    const start = s.lines.find((line) => String(line.msg).startsWith('taskqueue listening on 127.0.0.1:'));
    expect(start).toBeDefined();
    expect(start!.address).toBe(new URL(s.url).host);
    expect(start!.msg).toContain(`administrators: ${ADMIN}`);
    expect(start!.msg).toContain('taskqueue token --email');
    expect(start!.administrators).toBe(1);
  });

  it('writes one line per request: id, method, route template, status, duration, queue and caller', async () => {
    const before = s.lines.length;
    const r = await fetch(`${s.url}${s.path('jobs')}/tasks?oauth_token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'client-id-42' },
      body: JSON.stringify({ id: 'logged-task', payloadBase64: Buffer.from(SECRET_PAYLOAD).toString('base64') }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe('client-id-42');
    const mine = requestLines(s.lines.slice(before));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      level: LEVEL.info,
      reqId: 'client-id-42',
      method: 'POST',
      route: '/taskqueue/v1beta2/projects/:project/taskqueues/:taskqueue/tasks',
      status: 200,
      queue: 'jobs',
      caller: ADMIN,
    });
    expect(typeof mine[0]!.ms).toBe('number');
  });

  it('generates a request id when none (or a malformed or overlong one) is sent, and echoes it', async () => {
    for (const sent of [undefined, 'bad id with spaces', 'x'.repeat(129), 'new\u0085line']) {
      const before = s.lines.length;
      const headers: Record<string, string> = auth();
      if (sent !== undefined)
        headers['x-request-id'] = encodeURIComponent(sent) === sent ? sent : sent.replace(/[^\x20-\x7e]/g, '?');
      const r = await fetch(`${s.url}${s.path('jobs')}/tasks/logged-task`, { headers });
      expect(r.status).toBe(200);
      const id = r.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(requestLines(s.lines.slice(before))[0]!.reqId).toBe(id);
    }
  });

  it('logs the route template of an unknown path as "unmatched", never the raw path', async () => {
    const before = s.lines.length;
    const r = await fetch(`${s.url}/no/such/path/${token}`);
    expect(r.status).toBe(404);
    const line = requestLines(s.lines.slice(before))[0]!;
    expect(line).toMatchObject({ route: 'unmatched', status: 404 });
  });

  it('never logs tokens, API keys or payloads', async () => {
    await fetch(`${s.url}${s.path('jobs')}/tasks/lease?numTasks=1&leaseSecs=60&key=MY-API-KEY-991`, {
      method: 'POST',
      headers: auth(),
    });
    await fetch(`${s.url}${s.path('jobs')}/tasks`, { headers: { authorization: 'Bearer not-a-valid-token-5521' } });
    const all = s.raw.join('');
    expect(all).not.toContain(token);
    expect(all).not.toContain(token.split('.')[2]!);
    expect(all).not.toContain('not-a-valid-token-5521');
    expect(all).not.toContain('MY-API-KEY-991');
    expect(all).not.toContain(SECRET_PAYLOAD);
    expect(all).not.toContain(Buffer.from(SECRET_PAYLOAD).toString('base64'));
  });

  it('a dropped schema answers 503 (never 500); the failure is logged once with its stack and request id, and "database lost" once', async () => {
    await s.sql(`drop schema ${s.schema} cascade`);
    const before = s.lines.length;
    const statuses: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${s.url}${s.path('jobs')}/tasks/lease?numTasks=1&leaseSecs=60`, {
        method: 'POST',
        headers: auth(),
      });
      statuses.push(r.status);
      ids.push(r.headers.get('x-request-id')!);
      expect(r.headers.get('retry-after')).toBe('1');
    }
    expect(statuses).toEqual([503, 503, 503]);
    const lines = s.lines.slice(before);
    const failed = lines.filter((line) => line.msg === 'request failed');
    expect(failed.map((line) => line.reqId)).toEqual(ids);
    for (const line of failed) {
      expect(line.level).toBe(LEVEL.error);
      const err = line.err as { stack?: string; message?: string };
      expect(err.stack).toContain('QueueError');
      expect(JSON.stringify(err)).toContain('does not exist');
    }
    // One line per failed request: nothing else logs the same error again.
    expect(lines.filter((line) => line.level >= LEVEL.error && line.msg !== 'database lost')).toHaveLength(3);
    const lost = lines.filter((line) => line.msg === 'database lost');
    expect(lost).toHaveLength(1);
    expect(lost[0]!.schemaMissing).toBe(true);

    const probesFrom = s.lines.length;
    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not ready', reason: 'database' });
    expect((await fetch(`${s.url}/readyz`)).status).toBe(503);
    // A probe's 503 is its answer: logged as a request, never at error level.
    const probes = s.lines.slice(probesFrom).filter((line) => line.route === '/readyz');
    expect(probes.map((line) => [line.msg, line.status, line.level])).toEqual([
      ['request', 503, LEVEL.info],
      ['request', 503, LEVEL.info],
    ]);

    // The operator restores the schema: the next query that works says so, once.
    const database = await openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize: 1 });
    try {
      await migrate(database.db, s.schema);
    } finally {
      await database.close();
    }
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    expect(s.lines.filter((line) => line.msg === 'database regained')).toHaveLength(1);
  });
});
