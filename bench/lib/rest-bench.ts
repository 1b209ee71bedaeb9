import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundleScript, TSX } from './bundle-script.js';
import { RawSqlQueue } from './raw-sql.js';
import type { LoadJob, LoadResult, LoadTarget } from './rest-load-jobs.js';
import { figure, formatFigure, latency, type Figure } from './stats.js';
import { printTable } from './table.js';

/**
 * REST figures (`npm run bench -- --compare`): the real app (`createApp`,
 * access control off, a pull queue with an unlimited lease rate, the
 * server's default pool of 10) served by @hono/node-server in a process of
 * its own, driven over keep-alive HTTP on loopback by a load generator in a
 * third process. Each run starts both afresh; each figure is the median of
 * `runs` runs with its spread, and each ratio is computed within a run.
 * REST_BENCH_DEBUG=1 prints every step's figures as it ends.
 */

const SERVER = fileURLToPath(new URL('../rest-server.ts', import.meta.url));
const LOAD = fileURLToPath(new URL('../rest-load.ts', import.meta.url));
const CONSUMERS = 16;
const MB = 1024 * 1024;

type Answer = { result?: unknown; error?: string; ready?: boolean; url?: string; project?: string; queue?: string };

/** A benchmark child process spoken to over IPC, one request at a time. */
class Child {
  readonly #process: ChildProcess;
  readonly #answers: Answer[] = [];
  #waiting: ((answer: Answer) => void) | null = null;
  #exited: string | null = null;

  constructor(script: string, args: string[], execArgv: string[]) {
    this.#process = fork(script, args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.#process.on('message', (answer: Answer) => this.#deliver(answer));
    this.#process.on('exit', (code) => {
      this.#exited = `${script} exited with code ${code}`;
      this.#deliver({ error: this.#exited });
    });
  }

  #deliver(answer: Answer): void {
    const waiting = this.#waiting;
    this.#waiting = null;
    if (waiting) waiting(answer);
    else this.#answers.push(answer);
  }

  next(): Promise<Answer> {
    const queued = this.#answers.shift();
    if (queued) return Promise.resolve(queued);
    if (this.#exited) return Promise.reject(new Error(this.#exited));
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  async call<T>(message: unknown): Promise<T> {
    this.#process.send(message as never);
    const answer = await this.next();
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.result as T;
  }

  stop(): void {
    if (this.#exited === null) this.#process.kill();
  }
}

function serverScript(): Promise<{ script: string; execArgv: string[] }> {
  return bundleScript(SERVER, 'rest-server');
}

type Step =
  | { readonly key: string; readonly preload: number; readonly job: LoadJob }
  | { readonly key: string; readonly inProcess: { readonly count: number; readonly numTasks: number } };

/**
 * The steps of one run. Cycles come before inserts (inserts leave tasks
 * behind). Plain and gzip cycles run as A B B A halves, so that drift of the
 * machine's load during the run falls on both alike.
 */
function plan(quick: boolean): Step[] {
  const seconds = quick ? 6 : 10;
  const cycle = (
    numTasks: number,
    tasks: number,
    deletes: 'each' | 'batch' | 'batchDelete',
    gzip: boolean,
    batchPath?: string,
  ): LoadJob => ({
    kind: 'cycle',
    consumers: CONSUMERS,
    numTasks,
    tasks,
    deletes,
    gzip,
    seconds,
    ...(batchPath ? { batchPath } : {}),
  });
  const half1 = quick ? 1_000 : 2_000;
  const half100 = quick ? 3_000 : 6_000;
  const batched = quick ? 10_000 : 25_000;
  const abba = (key: string, numTasks: number, half: number): Step[] => [
    { key: `${key}#a`, preload: half, job: cycle(numTasks, half, 'each', false) },
    { key: `${key}Gzip#a`, preload: half, job: cycle(numTasks, half, 'each', true) },
    { key: `${key}Gzip#b`, preload: half, job: cycle(numTasks, half, 'each', true) },
    { key: `${key}#b`, preload: half, job: cycle(numTasks, half, 'each', false) },
  ];
  return [
    // Warm-up (not measured): the JIT and the database's caches, for both cycle shapes.
    { key: 'warmup#1', preload: 500, job: cycle(1, 500, 'each', false) },
    { key: 'warmup#100', preload: 2_000, job: cycle(100, 2_000, 'each', false) },
    // The runner's code (the client, undici, TaskWorker) warmed like the loops' before it is measured.
    {
      key: 'warmup#runner',
      preload: 2_000,
      job: { kind: 'runner', concurrency: CONSUMERS * 100, batchSize: 100, tasks: 2_000, seconds },
    },
    { key: 'warmup#noop', preload: 0, job: { kind: 'noop', connections: CONSUMERS, requests: 3_000, seconds: 2 } },
    {
      key: 'noop',
      preload: 0,
      job: { kind: 'noop', connections: CONSUMERS, requests: quick ? 20_000 : 40_000, seconds: quick ? 2 : 3 },
    },
    ...abba('cycle1', 1, half1),
    { key: 'inProcess1', inProcess: { count: half1 * 2, numTasks: 1 } },
    ...abba('cycle100', 100, half100),
    { key: 'inProcess100', inProcess: { count: half100 * 2, numTasks: 100 } },
    { key: 'cycle100Batch', preload: batched, job: cycle(100, batched, 'batch', false) },
    { key: 'cycle100BatchDelete', preload: batched, job: cycle(100, batched, 'batchDelete', false) },
    // The REST worker runner doing the same work: leases of 100, up to 16 in flight (concurrency 1600), fenced batch deletes.
    {
      key: 'runner',
      preload: batched,
      job: { kind: 'runner', concurrency: CONSUMERS * 100, batchSize: 100, tasks: batched, seconds },
    },
    { key: 'cycle100BatchRouted', preload: half100, job: cycle(100, half100, 'batch', false, '/bench/batch-routed') },
    {
      key: 'insert1',
      preload: 0,
      job: { kind: 'insert', connections: CONSUMERS, tasks: quick ? 2_000 : 4_000, perRequest: 1, seconds },
    },
    {
      key: 'insert100',
      preload: 0,
      job: { kind: 'insert', connections: 4, tasks: quick ? 10_000 : 20_000, perRequest: 100, seconds },
    },
  ];
}

/** One measured job of one run, its halves merged. */
interface JobFigures {
  readonly tasksPerSecond: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly leaseP50Ms?: number;
  readonly leaseP99Ms?: number;
  /** Share of one core the server / the load generator used during the job. */
  readonly serverCpu: number;
  readonly clientCpu: number;
  readonly peakRssBytes: number;
  readonly errors: number;
}

interface RunFigures {
  readonly jobs: Record<string, JobFigures>;
  readonly inProcess: Record<string, { tasksPerSecond: number }>;
  readonly peakRssBytes: number;
  readonly idleRssBytes: number;
  readonly rawTasksPerSecond: number;
}

interface Usage {
  readonly peakRss: number;
  readonly rss: number;
  readonly cpuMicros: number;
}

interface Measured {
  readonly result: LoadResult;
  readonly serverCpuMicros: number;
  readonly peakRss: number;
}

function merge(parts: readonly Measured[]): JobFigures {
  const seconds = parts.reduce((s, p) => s + p.result.seconds, 0);
  const tasks = parts.reduce((s, p) => s + p.result.tasks, 0);
  const latencies = parts.flatMap((p) => p.result.latencies);
  const leases = parts.flatMap((p) => p.result.leaseLatencies);
  const all = latency(latencies);
  const lease = leases.length > 0 ? latency(leases) : undefined;
  return {
    tasksPerSecond: tasks / seconds,
    requestsPerSecond: latencies.length / seconds,
    p50Ms: all.p50,
    p99Ms: all.p99,
    ...(lease ? { leaseP50Ms: lease.p50, leaseP99Ms: lease.p99 } : {}),
    serverCpu: parts.reduce((s, p) => s + p.serverCpuMicros, 0) / 1e6 / seconds,
    clientCpu: parts.reduce((s, p) => s + p.result.cpuMicros, 0) / 1e6 / seconds,
    peakRssBytes: Math.max(...parts.map((p) => p.peakRss)),
    errors: parts.reduce((s, p) => s + p.result.errors, 0),
  };
}

async function oneRun(
  url: string,
  quick: boolean,
  server: { script: string; execArgv: string[] },
): Promise<RunFigures> {
  const serverProcess = new Child(server.script, [url, '10'], server.execArgv);
  const load = new Child(LOAD, [], ['--import', TSX]);
  try {
    const ready = await serverProcess.next();
    if (!ready.ready) throw new Error(`REST bench server failed: ${ready.error ?? 'no ready message'}`);
    const target: LoadTarget = {
      url: ready.url!,
      tasksPath: `/taskqueue/v1beta2/projects/${ready.project}/taskqueues/${ready.queue}/tasks`,
    };
    const idle = await serverProcess.call<Usage>({ cmd: 'usage' });
    const measured = new Map<string, Measured[]>();
    const inProcess: Record<string, { tasksPerSecond: number }> = {};
    let peakRss = idle.rss;
    for (const step of plan(quick)) {
      if ('inProcess' in step) {
        inProcess[step.key] = await serverProcess.call<{ tasksPerSecond: number }>({
          cmd: 'inprocess',
          ...step.inProcess,
          consumers: CONSUMERS,
        });
        peakRss = Math.max(peakRss, (await serverProcess.call<Usage>({ cmd: 'usage' })).peakRss);
        continue;
      }
      if (step.preload > 0) await serverProcess.call({ cmd: 'preload', count: step.preload });
      const before = await serverProcess.call<Usage>({ cmd: 'usage' });
      const result = await load.call<LoadResult>({ target, job: step.job });
      const after = await serverProcess.call<Usage>({ cmd: 'usage' });
      peakRss = Math.max(peakRss, before.peakRss, after.peakRss);
      if (result.errors > 0)
        console.warn(`REST bench ${step.key}: ${result.errors} errors, first: ${result.firstError ?? '?'}`);
      if (process.env.REST_BENCH_DEBUG)
        console.log(
          step.key,
          (result.tasks / result.seconds).toFixed(0),
          (result.latencies.length / result.seconds).toFixed(0),
        );
      const [key = step.key] = step.key.split('#');
      if (key === 'warmup') continue;
      const list = measured.get(key) ?? [];
      list.push({ result, serverCpuMicros: after.cpuMicros - before.cpuMicros, peakRss: after.peakRss });
      measured.set(key, list);
    }
    await serverProcess.call({ cmd: 'close' });
    // The raw SQL ceiling of the batched path's work (lease 100 + one delete, 16 consumers), measured right after it.
    const raw = new RawSqlQueue(url, CONSUMERS + 2);
    await raw.setup();
    let rawTasksPerSecond: number;
    try {
      const count = quick ? 10_000 : 25_000;
      await raw.add(count, 4, Buffer.alloc(64, 'x'));
      rawTasksPerSecond = (await raw.cycle(count, 100, CONSUMERS)).tasksPerSecond;
    } finally {
      await raw.close();
    }
    const jobs: Record<string, JobFigures> = {};
    for (const [key, parts] of measured) jobs[key] = merge(parts);
    return { jobs, inProcess, peakRssBytes: peakRss, idleRssBytes: idle.rss, rawTasksPerSecond };
  } finally {
    serverProcess.stop();
    load.stop();
  }
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

const LABELS: Record<string, string> = {
  noop: 'HTTP ceiling: GET /bench/noop (trivial Hono route)',
  cycle1: 'lease numTasks=1 + DELETE per task',
  cycle1Gzip: '  same, gzip',
  cycle100: 'lease numTasks=100 + DELETE per task',
  cycle100Gzip: '  same, gzip',
  cycle100Batch: 'lease 100 + batch request of 100 DELETEs',
  cycle100BatchDelete: 'lease 100 + tasks:batchDelete (extension)',
  runner: 'REST worker runner (queue.work, batches of 100)',
  cycle100BatchRouted: 'lease 100 + batch, parts routed one by one',
  insert1: 'insert, 1 task per request (16 conn.)',
  insert100: 'insert, batch request of 100 (4 conn.)',
};

/**
 * Runs the REST section and prints its table. `rawCeiling` is the raw SQL
 * figure of the cycle section at numTasks 100 with 16 consumers (same
 * bench run); the batched REST paths are also compared with a raw run
 * measured right after them, less exposed to the machine's drift.
 */
export async function runRestBench(
  url: string,
  runs: number,
  quick: boolean,
  rawCeiling?: Figure,
): Promise<Record<string, unknown>> {
  const started = Date.now();
  const server = await serverScript();
  const all: RunFigures[] = [];
  for (let i = 0; i < runs; i++) all.push(await oneRun(url, quick, server));

  const keys = Object.keys(all[0]!.jobs);
  const jobs: Record<string, Record<string, Figure | number>> = {};
  for (const key of keys) {
    const pick = (field: keyof JobFigures) => figure(all.map((run) => Number(run.jobs[key]![field] ?? Number.NaN)));
    jobs[key] = {
      tasksPerSecond: pick('tasksPerSecond'),
      requestsPerSecond: pick('requestsPerSecond'),
      p50Ms: pick('p50Ms'),
      p99Ms: pick('p99Ms'),
      ...(all[0]!.jobs[key]!.leaseP50Ms === undefined
        ? {}
        : { leaseP50Ms: pick('leaseP50Ms'), leaseP99Ms: pick('leaseP99Ms') }),
      serverCpu: pick('serverCpu'),
      clientCpu: pick('clientCpu'),
      peakRssMb: figure(all.map((run) => run.jobs[key]!.peakRssBytes / MB)),
      errors: all.reduce((n, run) => n + run.jobs[key]!.errors, 0),
    };
  }
  const inProcess = {
    cycle1: figure(all.map((r) => r.inProcess.inProcess1!.tasksPerSecond)),
    cycle100: figure(all.map((r) => r.inProcess.inProcess100!.tasksPerSecond)),
  };
  // Ratios per run, then their median and spread.
  const perRun = (f: (run: RunFigures) => number) => figure(all.map(f));
  const j = (run: RunFigures, key: string) => run.jobs[key]!;
  const ratios = {
    cycle1RequestsOverNoop: perRun((r) => j(r, 'cycle1').requestsPerSecond / j(r, 'noop').requestsPerSecond),
    cycle100RequestsOverNoop: perRun((r) => j(r, 'cycle100').requestsPerSecond / j(r, 'noop').requestsPerSecond),
    cycle1OverInProcess: perRun((r) => j(r, 'cycle1').tasksPerSecond / r.inProcess.inProcess1!.tasksPerSecond),
    cycle100OverInProcess: perRun((r) => j(r, 'cycle100').tasksPerSecond / r.inProcess.inProcess100!.tasksPerSecond),
    gzipCost1: perRun((r) => 1 - j(r, 'cycle1Gzip').tasksPerSecond / j(r, 'cycle1').tasksPerSecond),
    gzipCost100: perRun((r) => 1 - j(r, 'cycle100Gzip').tasksPerSecond / j(r, 'cycle100').tasksPerSecond),
    batchOverRawAdjacent: perRun((r) => j(r, 'cycle100Batch').tasksPerSecond / r.rawTasksPerSecond),
    batchDeleteOverRawAdjacent: perRun((r) => j(r, 'cycle100BatchDelete').tasksPerSecond / r.rawTasksPerSecond),
    runnerOverBatchDelete: perRun((r) => j(r, 'runner').tasksPerSecond / j(r, 'cycle100BatchDelete').tasksPerSecond),
    batchOverRouted: perRun((r) => j(r, 'cycle100Batch').tasksPerSecond / j(r, 'cycle100BatchRouted').tasksPerSecond),
    batchOverPerTaskDelete: perRun((r) => j(r, 'cycle100Batch').tasksPerSecond / j(r, 'cycle100').tasksPerSecond),
    insertBatchOverSingle: perRun((r) => j(r, 'insert100').tasksPerSecond / j(r, 'insert1').tasksPerSecond),
  };
  const rawAdjacent = figure(all.map((r) => r.rawTasksPerSecond));
  const overCycleRaw = rawCeiling
    ? {
        batchOverRawCycleSection: (jobs.cycle100Batch!.tasksPerSecond as Figure).median / rawCeiling.median,
        batchDeleteOverRawCycleSection: (jobs.cycle100BatchDelete!.tasksPerSecond as Figure).median / rawCeiling.median,
      }
    : {};
  const peakRss = figure(all.map((r) => r.peakRssBytes / MB));
  const idleRss = figure(all.map((r) => r.idleRssBytes / MB));

  const rows = keys.map((key) => {
    const f = jobs[key]!;
    const fig = (name: string, digits = 0) => formatFigure(f[name] as Figure, digits);
    return [
      LABELS[key] ?? key,
      key === 'noop' ? '' : fig('tasksPerSecond'),
      fig('requestsPerSecond'),
      `${fig('p50Ms', 1)} / ${fig('p99Ms', 1)}`,
      f.leaseP50Ms ? `${fig('leaseP50Ms', 1)} / ${fig('leaseP99Ms', 1)}` : '',
      `${pct((f.serverCpu as Figure).median)} / ${pct((f.clientCpu as Figure).median)}`,
      (((f.serverCpu as Figure).median * 1e6) / (f.requestsPerSecond as Figure).median).toFixed(0),
      formatFigure(f.peakRssMb as Figure),
    ];
  });
  printTable(
    `REST over keep-alive HTTP, ${CONSUMERS} consumers, load generator in its own process (medians of ${runs} [min-max])`,
    [
      '',
      'tasks/s',
      'requests/s',
      'request p50 / p99 ms',
      'lease p50 / p99 ms',
      'CPU server/loadgen',
      'server µs/request',
      'peak RSS MB',
    ],
    rows,
  );
  const lines = [
    `lease+DELETE request rate / trivial route: numTasks=1 ${pct(ratios.cycle1RequestsOverNoop.median)}, numTasks=100 ${pct(ratios.cycle100RequestsOverNoop.median)} (target >= 70%)`,
    `REST lease+DELETE / the same calls in-process (lease, then deleteTask(name) per task: ${formatFigure(inProcess.cycle1)} and ${formatFigure(inProcess.cycle100)} tasks/s): ` +
      `numTasks=1 ${pct(ratios.cycle1OverInProcess.median)}, numTasks=100 ${pct(ratios.cycle100OverInProcess.median)}`,
    `gzip cost (tasks/s lost): numTasks=1 ${pct(ratios.gzipCost1.median)} (lease answers under 1 KiB are not compressed), numTasks=100 ${pct(ratios.gzipCost100.median)} (target <= 30%)`,
    `batch endpoint lease+delete / raw SQL ceiling (numTasks=100, ${CONSUMERS} consumers): ` +
      (rawCeiling
        ? `${pct(overCycleRaw.batchOverRawCycleSection!)} of the cycle section's raw ${formatFigure(rawCeiling)}; `
        : '') +
      `${pct(ratios.batchOverRawAdjacent.median)} of raw measured right after it, ${formatFigure(rawAdjacent)} (target >= 50%)`,
    `tasks:batchDelete / raw: ${rawCeiling ? `${pct(overCycleRaw.batchDeleteOverRawCycleSection!)} (cycle section); ` : ''}${pct(ratios.batchDeleteOverRawAdjacent.median)} (right after)`,
    `REST worker runner / lease 100 + tasks:batchDelete: ${ratios.runnerOverBatchDelete.median.toFixed(2)}x (target >= 0.8x)`,
    `batch of DELETEs: ${ratios.batchOverPerTaskDelete.median.toFixed(1)}x per-task DELETEs; combined in one deleteTask call: ${ratios.batchOverRouted.median.toFixed(1)}x routing each part; batch insert ${ratios.insertBatchOverSingle.median.toFixed(1)}x single inserts`,
    `server RSS: idle ${formatFigure(idleRss)} MB, peak under load ${formatFigure(peakRss)} MB (target < 200 MB)`,
    `REST section: ${((Date.now() - started) / 1000).toFixed(0)} s`,
  ];
  for (const line of lines) console.log(line);
  return {
    setup: {
      consumers: CONSUMERS,
      poolSize: 10,
      auth: 'off',
      leaseRate: 'unlimited',
      payloadBytes: 64,
      runs,
      serverRunsAs: server.execArgv.length ? 'tsx' : 'bundled JS',
    },
    jobs,
    inProcess,
    rawAdjacent,
    ...(rawCeiling ? { rawCycleSection: rawCeiling } : {}),
    ratios: { ...ratios, ...overCycleRaw },
    peakRssMb: peakRss,
    idleRssMb: idleRss,
  };
}
