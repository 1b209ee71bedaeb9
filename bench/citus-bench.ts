/**
 * `npm run bench -- --citus`: the service on a Citus coordinator beside the
 * same service on plain PostgreSQL, in one run: adds in batches of 100 and
 * the lease + delete cycle at 100 and at 1 task per lease, through the code
 * paths of the `add` and `cycle` sections (bench/lib/service-bench.ts), a
 * fresh schema per measure. Each run measures plain PostgreSQL then Citus
 * back to back, and the ratio quoted is the median of those pairs' ratios.
 * Then the remote commands the coordinator sends per call
 * (bench/lib/citus-remote.ts). docs/scaling.md quotes the figures.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import {
  benchCitusUrl,
  checkCitusCoordinator,
  countRemoteCommands,
  durability,
  REMOTE_CALLS,
} from './lib/citus-remote.js';
import { benchAdd, benchCycle, openBenchService, preload } from './lib/service-bench.js';
import { figure, formatFigure, type Figure } from './lib/stats.js';
import { printTable } from './lib/table.js';

/** Producers and consumers of every measure: 4, as the SQL API section, so a 2-core machine is not only queueing. */
const LOOPS = 4;

interface Sizes {
  readonly addWarmUp: number;
  readonly add: number;
  readonly cycle100: number;
  readonly cycle1: number;
}

// Quick: a few seconds per measure on a loaded machine (about 2-3 minutes in all).
const QUICK_SIZES: Sizes = { addWarmUp: 5_000, add: 10_000, cycle100: 5_000, cycle1: 500 };
const FULL_SIZES: Sizes = { addWarmUp: 20_000, add: 20_000, cycle100: 20_000, cycle1: 2_000 };

async function withService<T>(url: string, run: (bench: Awaited<ReturnType<typeof openBenchService>>) => Promise<T>) {
  const bench = await openBenchService(url, 10);
  try {
    return await run(bench);
  } finally {
    await bench.close();
  }
}

const MEASURES: readonly { key: string; label: string; once(url: string, sizes: Sizes): Promise<number> }[] = [
  {
    key: 'add100',
    label: `add, batches of 100, ${LOOPS} producers`,
    // A first, untimed round, as the add section: the timed one then measures a warm add path.
    once: (url, sizes) =>
      withService(url, async (bench) => {
        await benchAdd(bench.queue, sizes.addWarmUp, LOOPS);
        return benchAdd(bench.queue, sizes.add, LOOPS);
      }),
  },
  ...([100, 1] as const).map((numTasks) => ({
    key: `cycle${numTasks}`,
    label: `lease+delete, numTasks ${numTasks}, ${LOOPS} consumers`,
    once: (url: string, sizes: Sizes) =>
      withService(url, async (bench) => {
        const count = numTasks === 1 ? sizes.cycle1 : sizes.cycle100;
        await preload(bench.queue, count);
        return (await benchCycle(bench.queue, count, numTasks, LOOPS)).tasksPerSecond;
      }),
  })),
];

/** Runs the comparison; exits with status 1, saying how to start one, when no Citus coordinator answers. */
export async function runCitusBench(plainUrl: string, args: readonly string[]): Promise<void> {
  const started = Date.now();
  const quick = args.includes('--quick');
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const sizes = quick ? QUICK_SIZES : FULL_SIZES;
  const citusUrl = benchCitusUrl();
  let workers: number;
  try {
    workers = await checkCitusCoordinator(citusUrl);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  const load = [loadavg()[0]!];
  console.log(`plain PostgreSQL ${plainUrl}, Citus coordinator ${citusUrl} with ${workers} workers, ${runs} runs`);
  const settings = { plain: await durability(plainUrl, false), citus: await durability(citusUrl, true) };
  console.log(`durability: plain ${settings.plain}; Citus (every node) ${settings.citus}`);
  if (settings.plain !== settings.citus)
    console.log(
      'WARNING: the two sides flush commits differently, so the ratios compare more than Citus. ' +
        'cluster.sh turns fsync and synchronous_commit off; to match a default server, on every node: ' +
        'alter system set fsync = on; alter system set synchronous_commit = on; select pg_reload_conf();',
    );
  // Warms Node's add and lease paths once, untimed, so the first pair does not pay the compile for plain alone.
  for (const measure of MEASURES) await measure.once(plainUrl, QUICK_SIZES);

  const plain: Record<string, number[]> = {};
  const citus: Record<string, number[]> = {};
  const ratios: Record<string, number[]> = {};
  for (let run = 0; run < runs; run++) {
    for (const { key, once } of MEASURES) {
      const p = await once(plainUrl, sizes);
      const c = await once(citusUrl, sizes);
      (plain[key] ??= []).push(p);
      (citus[key] ??= []).push(c);
      (ratios[key] ??= []).push(c / p);
    }
  }
  const section: Record<string, { plain: Figure; citus: Figure; ratio: Figure }> = {};
  const rows = MEASURES.map(({ key, label }) => {
    const cell = { plain: figure(plain[key]!), citus: figure(citus[key]!), ratio: figure(ratios[key]!) };
    section[key] = cell;
    const r = cell.ratio;
    return [
      label,
      formatFigure(cell.plain),
      formatFigure(cell.citus),
      `${r.median.toFixed(2)}x [${r.min.toFixed(2)}-${r.max.toFixed(2)}]`,
    ];
  });
  printTable(
    `Citus (coordinator + ${workers} workers) vs plain PostgreSQL (tasks/s; the ratio is the median of back-to-back pairs)`,
    ['work', 'plain', 'Citus', 'Citus / plain'],
    rows,
  );

  const remote = await withService(citusUrl, (bench) => countRemoteCommands(bench, citusUrl));
  printTable(
    `remote commands per call on the coordinator (SQL API functions; the queue's worker is on port ${remote.home})`,
    ['call', 'commands', 'worker ports', 'two-phase commit'],
    REMOTE_CALLS.map((call) => {
      const r = remote.calls[call];
      return [call, `${r.commands}`, r.ports.join(', '), r.twoPhase ? 'yes' : 'no'];
    }),
  );
  load.push(loadavg()[0]!);
  // The figures are ratios within one run; other work on the machine moves both sides, so say how busy it was.
  console.log(
    `\nload average (1 min) ${load.map((l) => l.toFixed(1)).join(' at the start, ')} at the end; ${cpus().length} cores`,
  );

  const results = {
    date: new Date().toISOString(),
    runs,
    quick,
    workers,
    loadAverage: load,
    sizes,
    ...section,
    remote,
  };
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/citus-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`wrote ${file} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
