import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import pg from 'pg';
import { loadConfigFile } from '../../src/config/load-config.js';
import type { ServiceConfig } from '../../src/core/queue-config.js';
import { mountConsole } from '../../src/console/mount-console.js';
import { openTaskQueue, type OpenTaskQueue } from '../../src/open-task-queue.js';
import { countersExact, inRounds, seqScans, timeCalls, timeOnce, type Latency, settle } from './measure.js';

/** Tasks spread evenly over the configured queues at every point. */
export const SPREAD_TASKS = 100_000;

export interface QueuesPoint {
  readonly queues: number;
  readonly tasks: number;
  /** Reading and validating queue.xml (median of 5). */
  readonly configLoadMs: number;
  /** openTaskQueue on a new schema: migrations and the queues written. */
  readonly firstStartMs: number;
  /** openTaskQueue again on the filled schema (a restart: the queues synced). */
  readonly restartMs: number;
  /** One task per call, a random queue each time. */
  readonly lease1: Latency;
  readonly add1: Latency;
  /** service.overview() of every queue (what `taskqueue queues` and /metrics read). */
  readonly overview: Latency;
  /** The console's queue list page and the table it refreshes. */
  readonly consolePage: Latency;
  readonly consoleTable: Latency;
  readonly tasksSeqScans: number;
  readonly countersExact: boolean;
}

function queueXml(count: number): string {
  const entries = Array.from(
    { length: count },
    (_, i) => `  <queue>\n    <name>scale-${i}</name>\n    <mode>pull</mode>\n  </queue>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<queue-entries>\n${entries.join('\n')}\n</queue-entries>\n`;
}

/**
 * A fresh schema with `count` configured pull queues (queue.xml, lease rate
 * lifted as in every benchmark) and SPREAD_TASKS due tasks spread evenly over
 * them (one INSERT ... SELECT the add trigger sees).
 */
export async function queuesPoint(url: string, count: number): Promise<QueuesPoint> {
  const dir = mkdtempSync(join(tmpdir(), 'taskqueue-scale-'));
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  let service: OpenTaskQueue | null = null;
  try {
    const file = join(dir, 'queue.xml');
    writeFileSync(file, queueXml(count));
    const loads: number[] = [];
    let loaded: ServiceConfig | null = null;
    for (let i = 0; i < 5; i++) {
      loads.push(await timeOnce(async () => (loaded = await loadConfigFile(file, { maxActiveQueues: count }))));
    }
    const config: ServiceConfig = { ...loaded!, queues: loaded!.queues.map((q) => ({ ...q, leaseRate: null })) };
    const open = () => openTaskQueue({ databaseUrl: url, schema, poolSize: 10, cleanupIntervalMs: 0, config });
    const firstStartMs = await timeOnce(async () => (service = await open()));
    await (service as OpenTaskQueue | null)?.close();
    service = null;

    await admin.query(
      `insert into ${schema}.tasks (queue_id, name, eta, payload)
       select q.id, 'spread-' || g, now() - interval '1 day' + g * interval '1 microsecond', $2
         from generate_series(1, $1) g
         join (select id, row_number() over (order by id) - 1 as k from ${schema}.queues where name like 'scale-%') q
           on q.k = g % $3`,
      [SPREAD_TASKS, Buffer.alloc(64, 'x'), count],
    );
    await admin.query(`vacuum (analyze) ${schema}.tasks`);
    await settle(admin);

    const restartMs = await timeOnce(async () => (service = await open()));
    const svc = service as unknown as OpenTaskQueue;
    // The configuration adds App Engine's push queue `default`; the curve's tasks are in the pull queues.
    const names = config.queues.filter((q) => q.mode === 'pull').map((q) => q.name);
    const pick = (i: number) => svc.getQueue(names[(i * 7919) % names.length]!);
    const payload = Buffer.alloc(64, 'x');
    // Warm-up, then measured calls.
    await timeCalls(20, (i) => pick(i).add({ payload }));
    const add1 = await inRounds(() => timeCalls(200, (i) => pick(i).add({ payload })));
    const lease1 = await inRounds(() =>
      timeCalls(200, async (i) => {
        const queue = pick(i);
        const tasks = await queue.leaseTasks({ lease: 300, maxTasks: 1 });
        if (tasks.length > 0) await queue.deleteTask(tasks);
      }),
    );
    const overview = await inRounds(() => timeCalls(10, () => svc.overview()));
    const app = new Hono();
    const mounted = mountConsole(app, { service: svc, auditLog: svc.auditLog });
    const page = (path: string) => async () => {
      const response = await app.request(path);
      if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status}`);
      await response.text();
    };
    let consolePage: Latency;
    let consoleTable: Latency;
    try {
      await page('/console')();
      consolePage = await inRounds(() => timeCalls(10, page('/console')));
      consoleTable = await inRounds(() => timeCalls(10, page('/console/queues-table')));
    } finally {
      await mounted.close();
    }
    await svc.close();
    service = null;
    const scans = await seqScans(admin, schema, ['tasks']);
    return {
      queues: count,
      tasks: SPREAD_TASKS,
      configLoadMs: [...loads].sort((a, b) => a - b)[2]!,
      firstStartMs,
      restartMs,
      lease1,
      add1,
      overview,
      consolePage,
      consoleTable,
      tasksSeqScans: scans.tasks ?? 0,
      countersExact: await countersExact(admin, schema),
    };
  } finally {
    await (service as OpenTaskQueue | null)?.close();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}
