import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { TaskQueueClient } from '../../src/client/index.js';
import { sleep } from './sleep.js';
import type { TestBed } from './test-bed.js';
import { randomInt, RUNNER_QUEUE } from './workload.js';

const SCRIPT = fileURLToPath(new URL('./runner-process.ts', import.meta.url));

export interface RunnerReport {
  readonly tasks: number;
  readonly seconds: number;
  readonly kills: number;
  /** Added tasks that are neither deleted (tombstoned) nor live at the end. */
  readonly lost: string[];
  /** Tasks still live at the end. */
  readonly left: number;
  /** Tasks two runs reported deleted (a fenced delete must succeed once). */
  readonly deletedTwice: string[];
}

/**
 * Consumers built on the REST worker runner, in processes of their own
 * spread over the servers, killed with kill -9 every 1-3 s and restarted,
 * until the queue is empty. Then: every task added was deleted exactly
 * once (its tombstone is there, and no two runs reported its delete), and
 * none is left.
 */
export async function runRunners(
  bed: TestBed,
  tasks: number,
  processes: number,
  log: (line: string) => void,
): Promise<RunnerReport> {
  // The load phase's last kill -9 may still be restarting a server: this
  // phase kills runners, not servers, so it starts once all of them answer.
  await Promise.all(bed.fleet.slots.map((slot) => slot.waitHealthy()));
  const started = Date.now();
  const client = new TaskQueueClient({ baseUrl: bed.fleet.slots[0]!.url, getToken: () => bed.token });
  const queue = client.queue(RUNNER_QUEUE);
  const names = Array.from({ length: tasks }, (_, i) => `runner-${started}-${i}`);
  for (const name of names) await queue.insert({ name, payload: name });
  const deletes = new Map<string, number>();
  const children: ChildProcess[] = [];
  const spawnRunner = (i: number) => {
    const url = bed.fleet.slots[i % bed.fleet.slots.length]!.url;
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, url, bed.token], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const name = line.startsWith('processed ') ? line.slice('processed '.length) : null;
      if (name !== null) deletes.set(name, (deletes.get(name) ?? 0) + 1);
    });
    children[i] = child;
  };
  for (let i = 0; i < processes; i += 1) spawnRunner(i);
  const db = new pg.Client({ connectionString: bed.databaseUrl });
  await db.connect();
  const live = async () =>
    Number(
      (
        await db.query<{ n: string }>(
          `select count(*) as n from taskqueue.tasks t join taskqueue.queues q on q.id = t.queue_id where q.name = $1`,
          [RUNNER_QUEUE],
        )
      ).rows[0]!.n,
    );
  let kills = 0;
  try {
    const deadline = Date.now() + 300_000;
    while ((await live()) > 0 && Date.now() < deadline) {
      await sleep(randomInt(1000, 3000));
      const victim = randomInt(0, processes - 1);
      children[victim]!.kill('SIGKILL');
      kills += 1;
      spawnRunner(victim);
      log(`  runners: ${deletes.size} of ${tasks} deleted, ${kills} kills`);
    }
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) =>
            child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM')),
          ),
      ),
    );
    const tombstoned = new Set(
      (
        await db.query<{ name: string }>(
          `select t.name from taskqueue.task_tombstones t join taskqueue.queues q on q.id = t.queue_id where q.name = $1 and t.reason = 'deleted'`,
          [RUNNER_QUEUE],
        )
      ).rows.map((row) => row.name),
    );
    const left = await live();
    return {
      tasks,
      seconds: (Date.now() - started) / 1000,
      kills,
      lost: names.filter((name) => !tombstoned.has(name)),
      left,
      deletedTwice: [...deletes].filter(([, n]) => n > 1).map(([name]) => name),
    };
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await db.end();
  }
}

export function describeRunners(report: RunnerReport): string[] {
  return [
    `runners: ${report.tasks} tasks through REST worker runners in ${report.seconds.toFixed(0)} s with ${report.kills} kill -9 of their processes`,
    `${report.lost.length === 0 && report.left === 0 ? 'ok  ' : 'FAIL'} every task deleted (${report.lost.length} lost${report.lost.length ? `: ${report.lost.slice(0, 5).join(', ')}` : ''}, ${report.left} left)`,
    `${report.deletedTwice.length === 0 ? 'ok  ' : 'FAIL'} no task deleted twice (fenced deletes) (${report.deletedTwice.length})`,
  ];
}

export function runnersPassed(report: RunnerReport): boolean {
  return report.lost.length === 0 && report.left === 0 && report.deletedTwice.length === 0;
}
