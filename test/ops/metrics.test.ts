import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTokenCommand } from '../../src/cli/commands/token.js';
import { testPgUrl } from '../helpers/engines.js';
import { startOpsServer, type OpsServer } from './ops-harness.js';

/** Prometheus text format -> `name{labels}` -> value (labels as written, in order). */
function parseMetrics(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    values.set(match[1]!, Number(match[2]));
  }
  return values;
}

async function scrape(s: OpsServer, headers: Record<string, string> = {}): Promise<Map<string, number>> {
  const r = await fetch(`${s.url}/metrics`, { headers });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toContain('text/plain');
  return parseMetrics(await r.text());
}

describe('GET /metrics after a known sequence of adds, leases, lapses and deletes', () => {
  let s: OpsServer;
  beforeAll(async () => {
    s = await startOpsServer();
  });
  afterAll(async () => {
    await s.close();
  });

  const post = (path: string, body?: object) =>
    fetch(`${s.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const lease = async (queue: string, numTasks: number) => {
    const r = await post(`${s.path(queue)}/tasks/lease?numTasks=${numTasks}&leaseSecs=300`);
    expect(r.status).toBe(200);
    return ((await r.json()) as { items?: { id: string }[] }).items ?? [];
  };

  it('counts tasks added, leased, expired, deleted and dead-lettered, and reads the queue gauges from the database', async () => {
    for (let i = 0; i < 5; i++)
      expect((await post(`${s.path('jobs')}/tasks`, { id: `t${i}`, payloadBase64: 'eA==' })).status).toBe(200);
    // One delayed task: ETA an hour ahead (set in SQL; never leased).
    expect((await post(`${s.path('jobs')}/tasks`, { id: 'later', payloadBase64: 'eA==' })).status).toBe(200);
    await s.sql(`update ${s.schema}.tasks set eta = now() + interval '1 hour' where name = 'later'`);
    const first = await lease('jobs', 2);
    expect(first).toHaveLength(2);
    // Both leases lapse (backdated in SQL, no sleeping); the next lease takes them again, plus one more.
    await s.sql(`update ${s.schema}.tasks set eta = now() - interval '1 hour' where name = any($1)`, [
      first.map((t) => t.id),
    ]);
    const second = await lease('jobs', 3);
    expect(second).toHaveLength(3);
    const del = await fetch(`${s.url}${s.path('jobs')}/tasks/${second[0]!.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    // The oldest available task has waited 100 s.
    const waiting = ['t0', 't1', 't2', 't3', 't4'].filter((name) => !second.some((t) => t.id === name));
    expect(waiting).toHaveLength(2);
    await s.sql(`update ${s.schema}.tasks set eta = now() - interval '100 seconds' where name = $1`, [waiting[0]]);

    // fragile: retry limit 1; leased once, lapsed, then dropped to the dead letters by the next lease.
    expect((await post(`${s.path('fragile')}/tasks`, { id: 'f1', payloadBase64: 'eA==' })).status).toBe(200);
    expect(await lease('fragile', 1)).toHaveLength(1);
    await s.sql(`update ${s.schema}.tasks set eta = now() - interval '1 second' where name = 'f1'`);
    expect(await lease('fragile', 1)).toHaveLength(0);

    const m = await scrape(s);
    expect(m.get('taskqueue_tasks_added_total{queue="jobs"}')).toBe(6);
    expect(m.get('taskqueue_tasks_leased_total{queue="jobs"}')).toBe(5);
    expect(m.get('taskqueue_tasks_expired_total{queue="jobs"}')).toBe(2);
    expect(m.get('taskqueue_tasks_deleted_total{queue="jobs"}')).toBe(1);
    expect(m.get('taskqueue_tasks_dead_lettered_total{queue="jobs"}')).toBe(0);
    expect(m.get('taskqueue_tasks_added_total{queue="fragile"}')).toBe(1);
    expect(m.get('taskqueue_tasks_leased_total{queue="fragile"}')).toBe(1);
    expect(m.get('taskqueue_tasks_dead_lettered_total{queue="fragile"}')).toBe(1);
    expect(m.get('taskqueue_tasks_expired_total{queue="fragile"}')).toBe(1);
    // Configured queues start at 0, so rates work from the first scrape.
    expect(m.get('taskqueue_tasks_added_total{queue="default"}')).toBe(0);

    // jobs now: t0..t4 minus the deleted one = 4 immediate tasks, 2 of them leased; 'later' delayed.
    expect(m.get('taskqueue_queue_tasks{queue="jobs",state="leased"}')).toBe(2);
    expect(m.get('taskqueue_queue_tasks{queue="jobs",state="available"}')).toBe(2);
    expect(m.get('taskqueue_queue_tasks{queue="jobs",state="delayed"}')).toBe(1);
    expect(m.get('taskqueue_queue_oldest_task_age_seconds{queue="jobs"}')).toBeGreaterThanOrEqual(100);
    expect(m.get('taskqueue_queue_oldest_task_age_seconds{queue="jobs"}')).toBeLessThan(200);
    expect(m.get('taskqueue_queue_dead_letters{queue="fragile"}')).toBe(1);
    expect(m.get('taskqueue_queue_tasks{queue="fragile",state="available"}')).toBe(0);
    expect(m.get('taskqueue_queue_paused{queue="jobs"}')).toBe(0);

    // HTTP, by route template and status.
    const insertRoute = '/taskqueue/v1beta2/projects/:project/taskqueues/:taskqueue/tasks';
    expect(m.get(`taskqueue_http_requests_total{route="${insertRoute}",method="POST",status="200"}`)).toBe(7);
    expect(m.get(`taskqueue_http_request_duration_seconds_count{route="${insertRoute}",method="POST"}`)).toBe(7);
    expect(m.get(`taskqueue_http_requests_total{route="${insertRoute}/:task",method="DELETE",status="200"}`)).toBe(1);
    // Pool gauges and Node's process metrics.
    expect(m.get('taskqueue_db_pool_max')).toBe(4);
    expect(m.get('taskqueue_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(0);
    expect(m.has('process_cpu_user_seconds_total')).toBe(true);
    expect(m.has('nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('reads the queue gauges with at most one query per second, however many scrapes', async () => {
    // Every queue gauge comes from TaskQueueService.overview (one query): count its calls.
    const overview = s.running.service.overview.bind(s.running.service);
    let calls = 0;
    s.running.service.overview = () => {
      calls++;
      return overview();
    };
    await new Promise((resolve) => setTimeout(resolve, 1100)); // let the previous reading age out
    const started = Date.now();
    const scrapes = await Promise.all(Array.from({ length: 20 }, () => fetch(`${s.url}/metrics`)));
    for (const r of scrapes) expect(r.status).toBe(200);
    expect(calls).toBe(1);
    // Back-to-back scrapes: one reading per second at most.
    for (let i = 0; i < 10; i++) expect((await fetch(`${s.url}/metrics`)).status).toBe(200);
    expect(calls).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / 1000));
  });
});

describe('TASKQUEUE_METRICS', () => {
  it('off: no /metrics route', async () => {
    const s = await startOpsServer({ settings: { metrics: 'off' } });
    try {
      expect((await fetch(`${s.url}/metrics`)).status).toBe(404);
    } finally {
      await s.close();
    }
  });

  it("token: only an administrator's bearer token may scrape", async () => {
    const s = await startOpsServer({
      settings: { metrics: 'token' },
      env: { TASKQUEUE_AUTH: 'on', TASKQUEUE_ADMINS: 'ops@example.com' },
    });
    try {
      const mint = (email: string) =>
        runTokenCommand(['--email', email, '--database-url', testPgUrl(), '--schema', s.schema], {});
      expect((await fetch(`${s.url}/metrics`)).status).toBe(401);
      const worker = await fetch(`${s.url}/metrics`, {
        headers: { authorization: `Bearer ${await mint('worker@example.com')}` },
      });
      expect(worker.status).toBe(403);
      const admin = await scrape(s, { authorization: `Bearer ${await mint('ops@example.com')}` });
      expect(admin.has('taskqueue_tasks_added_total{queue="jobs"}')).toBe(true);
    } finally {
      await s.close();
    }
  });
});
