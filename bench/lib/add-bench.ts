import { GraphileWorkerPeer, PgBossPeer } from './peers.js';
import { RawSqlQueue } from './raw-sql.js';
import { benchAdd, openBenchService } from './service-bench.js';
import { figure, formatFigure, type Figure } from './stats.js';

const PAYLOAD = Buffer.alloc(64, 'x');

/** How the add section runs: the database, quick sizes, the peers and raw SQL beside ours, and the runs. */
export interface AddBatchesOptions {
  readonly url: string;
  readonly quick: boolean;
  readonly compare: boolean;
  repeat<T>(once: () => Promise<T>): Promise<T[]>;
}

/**
 * Adds in batches of 100 with 4 producers: ours, the raw SQL ceilings and the
 * peers, as table rows and the section's JSON.
 */
export async function addBatchesSection(
  options: AddBatchesOptions,
): Promise<{ producers: number; rows: string[][]; section: Record<string, unknown> }> {
  const { url, quick, compare, repeat } = options;
  const ratio = (a: Figure, b: Figure) => `${(a.median / b.median).toFixed(2)}x`;
  const count = quick ? 20_000 : 50_000;
  const producers = 4;
  // Each system adds a first, untimed round before the timed one, and within
  // one run ours and raw SQL are measured back to back, so the ratio is taken
  // within the run. The first round is 20,000 tasks and the timed one 20,000
  // (quick) or 50,000: with 2,000 and 5,000 the timed phase lasted about a
  // tenth of a second, and what it measured was V8 still compiling the add
  // path (12-15 us of Node CPU per task in the first runs of a process
  // against 3-5 once warm; raw SQL's path is a few lines and warms at once).
  // A long-running producer sees the warm figure. See docs/performance.md
  // ("Adds in batches of 100 with 4 producers").
  const warmUp = 20_000;
  /** tasks/s of the timed round, and this process's CPU per task during it (us). */
  const timed = async (add: (n: number) => Promise<number>) => {
    await add(warmUp);
    const before = process.cpuUsage();
    const tasksPerSecond = await add(count);
    const cpu = process.cpuUsage(before);
    return { tasksPerSecond, cpuUsPerTask: (cpu.user + cpu.system) / count };
  };
  const oursOnce = async () => {
    const bench = await openBenchService(url, 10);
    try {
      return await timed((n) => benchAdd(bench.queue, n, producers));
    } finally {
      await bench.close();
    }
  };
  const rawOnce = async (named: boolean) => {
    const q = new RawSqlQueue(url, 10);
    await q.setup();
    try {
      return await timed((n) => (named ? q.addNamed(n, producers, PAYLOAD) : q.add(n, producers, PAYLOAD)));
    } finally {
      await q.close();
    }
  };
  const none = { tasksPerSecond: Number.NaN, cpuUsPerTask: Number.NaN };
  const triples = await repeat(async () =>
    compare
      ? { ours: await oursOnce(), raw: await rawOnce(false), named: await rawOnce(true) }
      : { ours: await oursOnce(), raw: none, named: none },
  );
  const ours = figure(triples.map((p) => p.ours.tasksPerSecond));
  const cpu = (f: Figure) => formatFigure(f, 1);
  const oursCpu = figure(triples.map((p) => p.ours.cpuUsPerTask));
  const rows: string[][] = [['taskqueue', formatFigure(ours), '', cpu(oursCpu)]];
  const section: Record<string, unknown> = { taskqueue: ours, taskqueueCpuUsPerTask: oursCpu, warmUp, count };
  if (compare) {
    const raw = figure(triples.map((p) => p.raw.tasksPerSecond));
    const named = figure(triples.map((p) => p.named.tasksPerSecond));
    const rawCpu = figure(triples.map((p) => p.raw.cpuUsPerTask));
    const namedCpu = figure(triples.map((p) => p.named.cpuUsPerTask));
    const boss = figure(
      await repeat(async () => {
        const peer = new PgBossPeer(url, 10);
        await peer.setup();
        try {
          await peer.add(warmUp, producers);
          return await peer.add(count, producers);
        } finally {
          await peer.close();
        }
      }),
    );
    const gw = figure(
      await repeat(async () => {
        const peer = new GraphileWorkerPeer(url);
        try {
          await peer.add(warmUp, producers);
          return await peer.add(count, producers);
        } finally {
          await peer.close();
        }
      }),
    );
    const perRun = figure(triples.map((p) => p.ours.tasksPerSecond / p.raw.tasksPerSecond));
    const perRunNamed = figure(triples.map((p) => p.ours.tasksPerSecond / p.named.tasksPerSecond));
    rows.unshift(
      ['raw SQL ceiling', formatFigure(raw), '1.00x', cpu(rawCpu)],
      [
        'raw SQL, a unique name per task',
        formatFigure(named),
        `${ratio(named, raw)} (ours ${perRunNamed.median.toFixed(2)}x of it)`,
        cpu(namedCpu),
      ],
    );
    rows[2]![2] = `${perRun.median.toFixed(2)}x`;
    rows.push(
      ['pg-boss', formatFigure(boss), ratio(boss, raw), ''],
      ['graphile-worker', formatFigure(gw), ratio(gw, raw), ''],
    );
    Object.assign(section, {
      raw,
      rawCpuUsPerTask: rawCpu,
      rawNamed: named,
      rawNamedCpuUsPerTask: namedCpu,
      pgBoss: boss,
      graphileWorker: gw,
      taskqueueOverRaw: perRun.median,
      taskqueueOverRawPerRun: perRun,
      taskqueueOverRawNamed: perRunNamed.median,
      taskqueueOverRawNamedPerRun: perRunNamed,
    });
  }
  return { producers, rows, section };
}
