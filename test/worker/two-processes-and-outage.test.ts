import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openTaskQueue } from '../../src/open-task-queue.js';
import { droppedAfterAll, testPgUrl } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { capturingLogger, outageRelay, waitFor } from './worker-harness.js';

const freshSchema = droppedAfterAll();
const admin = new pg.Pool({ connectionString: testPgUrl(), max: 2 });
afterAll(() => admin.end());
const count = async (schema: string) =>
  (await admin.query<{ n: number }>(`select count(*)::int as n from ${schema}.tasks`)).rows[0]!.n;

interface Run {
  name: string;
  start: number;
  end: number;
  pid: number;
}

function workerProcess(schema: string, runs: Run[]) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(new URL('./fixtures/worker-process.ts', import.meta.url)),
      testPgUrl(),
      schema,
      '1',
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  let ready = false;
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'ready') ready = true;
    else runs.push(JSON.parse(line) as Run);
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    ready: () => ready,
    stop: async () => {
      child.stdin.write('stop\n');
      await exited;
    },
  };
}

describe('workers across processes and outages (postgres)', () => {
  it('two runners in two processes never run one task at the same time', async () => {
    const schema = freshSchema();
    const service = await openTaskQueue({
      databaseUrl: testPgUrl(),
      schema,
      config: serviceConfig([pullQueue('q')]),
      cleanupIntervalMs: 0,
    });
    try {
      await service.getQueue('q').add(Array.from({ length: 30 }, (_, i) => ({ name: `t${i}` })));
      const runs: Run[] = [];
      // One-second leases and handlers of up to two seconds: most runs outlive their first lease and live on renewals.
      const children = [workerProcess(schema, runs), workerProcess(schema, runs)];
      await waitFor(() => children.every((child) => child.ready()), 'both workers', 30_000);
      await waitFor(async () => (await count(schema)) === 0, 'the queue to drain', 60_000);
      await Promise.all(children.map((child) => child.stop()));
      const byTask = new Map<string, Run[]>();
      for (const run of runs) byTask.set(run.name, [...(byTask.get(run.name) ?? []), run]);
      expect([...byTask.keys()].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `t${i}`).sort());
      expect(new Set(runs.map((run) => run.pid)).size).toBe(2);
      for (const [name, list] of byTask) {
        list.sort((a, b) => a.start - b.start);
        for (let i = 1; i < list.length; i++)
          expect(list[i]!.start, `task ${name} ran twice at once`).toBeGreaterThanOrEqual(list[i - 1]!.end);
      }
      // Renewal kept every lease: no task ran twice.
      expect(runs).toHaveLength(30);
    } finally {
      await service.close();
    }
  }, 90_000);

  it('an outage of the database in the middle: the worker backs off, logs once, recovers, and loses no task', async () => {
    const schema = freshSchema();
    const relay = await outageRelay();
    const logger = capturingLogger();
    const service = await openTaskQueue({
      databaseUrl: relay.url,
      schema,
      config: serviceConfig([pullQueue('q')]),
      cleanupIntervalMs: 0,
    });
    try {
      const queue = service.getQueue('q');
      await queue.add(Array.from({ length: 40 }, (_, i) => ({ name: `t${i}` })));
      const seen = new Set<string>();
      const states: string[] = [];
      const worker = queue
        .work(
          async (task) => {
            await new Promise((resolve) => setTimeout(resolve, 25));
            seen.add(task.name);
          },
          // Short leases: a lease the cut answered into the void (committed, its answer lost) holds its tasks
          // until it ends; with the default 60 s that outlasted the drain's wait (seen under load: 2 tasks, 28 s left).
          { concurrency: 2, pollIntervalMs: 300, leaseSeconds: 5, logger },
        )
        .on('state', (state) => states.push(state));
      await waitFor(() => seen.size >= 5, 'the first tasks');
      relay.down();
      await waitFor(() => states.includes('unavailable'), 'the worker to notice the outage');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      relay.up();
      await waitFor(async () => (await count(schema)) === 0, 'the queue to drain after the outage', 30_000);
      await worker.stop();
      expect(seen.size).toBe(40);
      expect(states.slice(0, 2)).toEqual(['unavailable', 'running']);
      expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    } finally {
      await service.close();
      await relay.close();
    }
  }, 60_000);
});
