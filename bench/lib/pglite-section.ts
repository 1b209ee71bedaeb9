import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundleScript } from './bundle-script.js';
import type { CycleResult } from './cycle.js';
import { figure, formatFigure, type Figure } from './stats.js';
import { printTable } from './table.js';

/** What one run of bench/pglite-bench.ts sends back. */
export interface PgliteRun {
  readonly add: number;
  readonly cycle: Record<string, CycleResult>;
  readonly openedRssBytes: number;
  readonly peakRssBytes: number;
}

const CHILD = fileURLToPath(new URL('../pglite-bench.ts', import.meta.url));
const MB = 1024 * 1024;

function runChild(script: string, execArgv: string[], quick: boolean): Promise<PgliteRun> {
  return new Promise((resolve, reject) => {
    const child = fork(script, quick ? ['--quick'] : [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let answer: { result?: PgliteRun; error?: string } | undefined;
    child.on('message', (message: { result?: PgliteRun; error?: string }) => (answer = message));
    child.on('exit', (code) => {
      if (answer?.result) resolve(answer.result);
      else reject(new Error(answer?.error ?? `bench/pglite-bench.ts exited with code ${code}`));
    });
  });
}

/**
 * The embedded engine (PGlite, data on disk) doing the add and the lease +
 * delete cycle of the sections above, each run in a fresh process: absolute
 * figures, the ratio to the same work on PostgreSQL in this run, and the
 * process's peak RSS.
 */
export async function pgliteSection(
  runs: number,
  quick: boolean,
  postgres: { add?: Figure; cycle?: Record<string, Figure> },
): Promise<Record<string, unknown>> {
  const { script, execArgv } = await bundleScript(CHILD, 'pglite');
  const results: PgliteRun[] = [];
  for (let i = 0; i < runs; i++) results.push(await runChild(script, execArgv, quick));
  const add = figure(results.map((r) => r.add));
  const vs = (ours: Figure, theirs: Figure | undefined) =>
    theirs ? `${(ours.median / theirs.median).toFixed(2)}x` : '';
  const rows: string[][] = [['add, batches of 100, 4 producers', formatFigure(add), '', vs(add, postgres.add)]];
  const section: Record<string, unknown> = { add };
  for (const key of Object.keys(results[0]!.cycle)) {
    const tasksPerSecond = figure(results.map((r) => r.cycle[key]!.tasksPerSecond));
    const leaseP99Ms = figure(results.map((r) => r.cycle[key]!.leaseP99Ms));
    section[key] = { tasksPerSecond, leaseP99Ms };
    rows.push([
      `lease + delete, ${key.replace(',', ', ')}`,
      formatFigure(tasksPerSecond),
      formatFigure(leaseP99Ms, 2),
      vs(tasksPerSecond, postgres.cycle?.[key]),
    ]);
  }
  const opened = figure(results.map((r) => r.openedRssBytes / MB));
  const peak = figure(results.map((r) => r.peakRssBytes / MB));
  Object.assign(section, { openedRssMb: opened, peakRssMb: peak });
  printTable(
    'embedded engine (PGlite, data on disk, one process)',
    ['work', 'tasks/s', 'lease p99 ms', 'vs PostgreSQL'],
    rows,
  );
  console.log(`PGlite process RSS: ${formatFigure(opened)} MB after opening, peak ${formatFigure(peak)} MB`);
  return section;
}
