/**
 * Where the REST server's CPU goes per request: `npx tsx bench/rest-profile.ts
 * [cycle1|cycle1wait|insert1|noop] [seconds]`. Starts the bench server (the real app,
 * bundled) under `--cpu-prof`, drives one job at it from the load generator
 * process, then reads the profile and prints the server's CPU per request,
 * split by where the time was spent (self time, grouped by file and by
 * package), so a change to the path can be judged by its µs per request
 * rather than by a throughput figure the machine's load moves.
 * `REST_BENCH_OBSERVED=1` profiles the server with its logger and metrics on.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TSX } from './lib/bundle-script.js';
import type { LoadJob, LoadResult, LoadTarget } from './lib/rest-load-jobs.js';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const which = process.argv[2] ?? 'cycle1';
const seconds = Number(process.argv[3] ?? 8);
const CONSUMERS = 16;

function call<T>(child: ChildProcess, message: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (answer: { result?: T; error?: string }) =>
      answer.error ? reject(new Error(answer.error)) : resolve(answer.result as T),
    );
    child.send(message as never);
  });
}

const jobs: Record<string, { preload: number; job: LoadJob }> = {
  cycle1: {
    preload: 200_000,
    job: { kind: 'cycle', consumers: CONSUMERS, numTasks: 1, tasks: 200_000, deletes: 'each', gzip: false, seconds },
  },
  // As the REST worker runner leases: long-poll (waitSecs), while tasks are there to take at once.
  cycle1wait: {
    preload: 200_000,
    job: {
      kind: 'cycle',
      consumers: CONSUMERS,
      numTasks: 1,
      tasks: 200_000,
      deletes: 'each',
      gzip: false,
      waitSecs: 20,
      seconds,
    },
  },
  insert1: { preload: 0, job: { kind: 'insert', connections: CONSUMERS, tasks: 200_000, perRequest: 1, seconds } },
  noop: { preload: 0, job: { kind: 'noop', connections: CONSUMERS, requests: 10_000_000, seconds } },
};
const chosen = jobs[which];
if (!chosen) throw new Error(`unknown job ${which}: one of ${Object.keys(jobs).join(', ')}`);

const dir = mkdtempSync(join(tmpdir(), 'rest-profile-'));
// Under tsx rather than bundled, so that the profile names each source file.
const server = { script: fileURLToPath(new URL('./rest-server.ts', import.meta.url)), execArgv: ['--import', TSX] };
const serverProcess = fork(server.script, [url, '10'], {
  execArgv: [...server.execArgv, '--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=200'],
  // Observed (REST_BENCH_OBSERVED=1), the server logs a line per request: read and dropped here, as a log collector would.
  stdio: ['ignore', process.env.REST_BENCH_OBSERVED === '1' ? 'pipe' : 'inherit', 'inherit', 'ipc'],
});
serverProcess.stdout?.resume();
const load = fork(fileURLToPath(new URL('./rest-load.ts', import.meta.url)), [], {
  execArgv: ['--import', TSX],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const ready = await new Promise<{ url: string; project: string; queue: string }>((resolve) =>
  serverProcess.once('message', resolve as never),
);
const target: LoadTarget = {
  url: ready.url,
  tasksPath: `/taskqueue/v1beta2/projects/${ready.project}/taskqueues/${ready.queue}/tasks`,
};
// Warm-up (the JIT), then the measured job; the preload's own CPU is profiled too, so it is excluded below by time.
if (chosen.preload > 0) await call(serverProcess, { cmd: 'preload', count: 50_000 });
await call(load, { target, job: { ...chosen.job, seconds: 2 } });
const before = await call<{ cpuMicros: number }>(serverProcess, { cmd: 'usage' });
const result = await call<LoadResult>(load, { target, job: chosen.job });
const after = await call<{ cpuMicros: number }>(serverProcess, { cmd: 'usage' });
const requests = result.latencies.length;
console.log(
  `${which}: ${requests} requests in ${result.seconds.toFixed(1)} s (${(requests / result.seconds).toFixed(0)}/s), ` +
    `server CPU ${((after.cpuMicros - before.cpuMicros) / requests).toFixed(0)} µs/request (process.cpuUsage), errors ${result.errors}`,
);
await call(serverProcess, { cmd: 'close' });
load.disconnect();
await new Promise((resolve) => serverProcess.once('exit', resolve));

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!;
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
};
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
// Only the samples of the measured job: the last `result.seconds` of the profile before close.
const self = new Map<number, number>();
let t = profile.startTime;
const times: number[] = [];
for (const delta of profile.timeDeltas) times.push((t += delta));
const end = times[times.length - 1]!;
const from = end - (result.seconds + 0.5) * 1e6;
for (let i = 0; i < profile.samples.length; i++) {
  if (times[i]! < from) continue;
  const delta = profile.timeDeltas[i + 1] ?? 0;
  self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + delta);
}
const group = (key: (node: Node) => string) => {
  const totals = new Map<string, number>();
  for (const [id, micros] of self) {
    const k = key(byId.get(id)!);
    totals.set(k, (totals.get(k) ?? 0) + micros);
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
};
const where = (node: Node) => {
  const u = node.callFrame.url;
  if (!u) return `(${node.callFrame.functionName || 'native'})`;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  if (nm) return nm[1]!;
  if (u.startsWith('node:')) return u;
  return u.replace(/^.*\/(src|bench)\//, '$1/');
};
const print = (
  title: string,
  rows: Array<[string, number]>,
  n: number,
  total = rows.reduce((s, [, v]) => s + v, 0),
) => {
  console.log(`\n${title} (sampled ${(total / requests).toFixed(0)} µs/request)`);
  for (const [k, v] of rows.slice(0, n))
    console.log(`${(v / requests).toFixed(1).padStart(7)} µs  ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
};
/** Self time in a few buckets, for the before/after table of docs/performance.md. */
const bucket = (node: Node): string => {
  const w = where(node);
  if (w === '((idle))') return 'idle';
  if (w === '((garbage collector))') return 'garbage collector';
  if (/^src\/http\//.test(w)) return 'our HTTP layer (src/http)';
  if (/^src\/core\//.test(w)) return 'core (src/core)';
  if (/^src\/store\//.test(w)) return 'store (src/store)';
  if (w === 'kysely') return 'kysely';
  if (w === 'pg' || w === 'pg-protocol' || w === 'pg-types' || w === 'pg-pool') return 'pg driver';
  if (w === 'hono') return 'hono (router, context)';
  if (w === '@hono/node-server') return '@hono/node-server';
  if (/undici|webstreams|abort_controller|js_transferable|event_target/.test(w))
    return 'web Request/Response/streams/AbortSignal';
  if (/crypto/.test(w)) return 'crypto (ETags, statement names)';
  return 'Node HTTP, sockets, timers, promises, other';
};
print('self time by bucket', group(bucket), 20);
print('self time by package or file', group(where), 30);
print(
  'self time by function',
  group((node) => `${node.callFrame.functionName || '(anonymous)'} ${where(node)}:${node.callFrame.lineNumber + 1}`),
  40,
);

// Inclusive time: each sample counts once for every distinct function on its stack.
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const label = (node: Node) =>
  `${node.callFrame.functionName || '(anonymous)'} ${where(node)}:${node.callFrame.lineNumber + 1}`;
const inclusive = new Map<string, number>();
for (const [id, micros] of self) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const k = label(byId.get(at)!);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + micros);
  }
}
const busy = [...self].reduce((s, [id, v]) => (byId.get(id)!.callFrame.functionName === '(idle)' ? s : s + v), 0);
print(
  'inclusive time by function',
  [...inclusive].filter(([k]) => !k.startsWith('(')).sort((a, b) => b[1] - a[1]),
  Number(process.env.PROFILE_ROWS ?? 60),
  busy,
);
const focus = process.env.PROFILE_FOCUS;
if (focus) {
  // Callers of one function: the stacks that lead to it, summed.
  const stacks = new Map<string, number>();
  for (const [id, micros] of self) {
    const chain: string[] = [];
    let hit = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = label(byId.get(at)!);
      if (k.includes(focus)) hit = true;
      if (hit) chain.push(k);
    }
    if (hit) {
      const key = chain.slice(0, 8).join(' < ');
      stacks.set(key, (stacks.get(key) ?? 0) + micros);
    }
  }
  print(
    `stacks through ${focus}`,
    [...stacks].sort((a, b) => b[1] - a[1]),
    15,
    busy,
  );
}
