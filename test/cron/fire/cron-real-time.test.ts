import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { droppedAfterAll, testPgUrl } from '../../helpers/engines.js';
import { startSink } from '../../helpers/push-sink.js';
import { spawnServer, type ChildServer } from '../../ops/child-server.js';

const schemaOf = droppedAfterAll();

const CRON = `
cron:
- name: minute
  url: /minute
  schedule: every 1 minutes
- name: flaky
  url: /flaky
  schedule: every 1 minutes
  retry_parameters:
    job_retry_limit: 2
    min_backoff_seconds: 1
    max_backoff_seconds: 1
`;

const children: ChildServer[] = [];
const dir = mkdtempSync(join(tmpdir(), 'tq-cron-real-time-'));
afterAll(async () => {
  for (const child of children) {
    child.kill('SIGKILL');
    await child.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `taskqueue_cron_firings_total` of one server, by job and outcome. */
async function firingsOf(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const match of text.matchAll(/^taskqueue_cron_firings_total\{job="([^"]+)",outcome="([^"]+)"\} (\d+)$/gm)) {
    counts.set(`${match[1]} ${match[2]}`, Number(match[3]));
  }
  return counts;
}

/**
 * The one proof on the real clock (PostgreSQL's now()) with real processes:
 * two `taskqueue serve` processes on one database over three minutes of two
 * `every 1 minutes` jobs, one of them killed (kill -9) in the middle of an
 * interval and started again. Three real minutes, because the grammar's
 * smallest interval is a minute and the point is that separate processes
 * racing on the real clock still make one firing per instant.
 */
it(
  'two server processes over three minutes: one delivery per minute, never two; a failing handler retried by the job; a kill -9 and restart fires nothing twice',
  { timeout: 260_000 },
  async () => {
    const sink = await startSink((request) => ({ status: request.url === '/flaky' ? 500 : 200 }));
    const schema = schemaOf();
    writeFileSync(join(dir, 'queue.yaml'), 'queue:\n- name: work\n  mode: pull\n');
    writeFileSync(join(dir, 'cron.yaml'), CRON);
    const serve = () => {
      const child = spawnServer({
        DATABASE_URL: testPgUrl(),
        TASKQUEUE_SCHEMA: schema,
        TASKQUEUE_CONFIG: join(dir, 'queue.yaml'),
        TASKQUEUE_CRON: join(dir, 'cron.yaml'),
        TASKQUEUE_PUSH_BASE_URL: sink.url,
        TASKQUEUE_PUSH_SIGNING: 'off',
        TASKQUEUE_POOL_SIZE: '3',
      });
      children.push(child);
      return child;
    };
    const a = serve();
    const aUrl = await a.started;
    // The second process after the first has made the schema (as a rolling start would).
    let b = serve();
    await b.started;
    const started = Date.now();
    const instantsOf = (url: string) =>
      sink.requests
        .filter((request) => request.url === url)
        .map((request) => String(request.headers['x-cloudscheduler-scheduletime']));
    // Kill b half way between two instants (30 s after the first firing's
    // instant, on the minute grid: no request of b's in flight, no instant
    // straddled), and start it again.
    while (instantsOf('/minute').length === 0 && Date.now() - started < 70_000) await sleep(200);
    const first = Date.parse(instantsOf('/minute')[0] ?? '');
    expect(Number.isFinite(first)).toBe(true);
    await sleep(first + 30_000 - Date.now());
    const killed = b;
    killed.kill('SIGKILL');
    await killed.exited;
    b = serve();
    const bUrl = await b.started;
    // Three firings of each job, then time for the last one's retries and any duplicate to show.
    while (instantsOf('/minute').length < 3 && Date.now() - started < 200_000) await sleep(500);
    await sleep(6_000);
    const metrics = [await firingsOf(aUrl), await firingsOf(bUrl)];
    await sink.close();

    const minutes = instantsOf('/minute');
    expect(minutes.length).toBeGreaterThanOrEqual(3);
    expect(new Set(minutes).size).toBe(minutes.length);
    // Consecutive minutes: none skipped, none doubled.
    const times = minutes.map((at) => Date.parse(at)).sort((x, y) => x - y);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(60_000);
    for (const at of times) expect(at % 60_000).toBe(0);
    // Each firing of the failing job: the first attempt and the job's two retries, no more.
    const flaky = instantsOf('/flaky');
    const perInstant = new Map<string, number>();
    for (const at of flaky) perInstant.set(at, (perInstant.get(at) ?? 0) + 1);
    expect([...perInstant.values()].slice(0, -1).every((n) => n === 3)).toBe(true);
    expect(Math.max(...perInstant.values())).toBeLessThanOrEqual(3);

    // Both processes tried the instants; the logs of all three show each instant added once.
    const fired = [a, killed, b].flatMap((child) =>
      child.lines
        .filter((line) => line.msg === 'cron job fired' && line.job === 'minute')
        .map((line) => String(line.task)),
    );
    expect(new Set(fired).size).toBe(fired.length);
    expect(fired.length).toBe(new Set(minutes).size);
    // The survivors' metrics: the process that lost an instant's race counted it already_added.
    const added = metrics.reduce((sum, counts) => sum + (counts.get('minute added') ?? 0), 0);
    const lost = metrics.reduce((sum, counts) => sum + (counts.get('minute already_added') ?? 0), 0);
    expect(added + lost).toBeGreaterThanOrEqual(2 * (minutes.length - 1));
    // The instants after the restart were tried by both survivors: each lost by one of them.
    expect(lost).toBeGreaterThanOrEqual(minutes.length - 1);
    // The restarted process found the chain where the others left it: nothing missed, nothing replayed.
    expect(b.lines.some((line) => line.msg === 'cron: firings missed while no process ran are not replayed')).toBe(
      false,
    );

    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    try {
      const rows = (
        await client.query<{ last_outcome: string }>(
          `select last_outcome from "${schema}".cron_jobs where name = 'minute'`,
        )
      ).rows;
      expect(rows.map((row) => row.last_outcome)).toEqual(['added']);
    } finally {
      await client.end();
    }
  },
);
