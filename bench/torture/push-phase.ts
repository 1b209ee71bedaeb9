import pg from 'pg';
import { openTaskQueue } from '../../src/index.js';
import { worstBucketExcess } from './bucket-window.js';
import { Chaos, type Outage } from './chaos.js';
import { claimTimes, installClaimRecorder, removeClaimRecorder } from './claim-recorder.js';
import { runPushChaos } from './push-chaos.js';
import type { SinkDelivery } from './push-sink.js';
import { now } from './rest-caller.js';
import { sleep } from './sleep.js';
import type { TestBed } from './test-bed.js';
import { PUSH_MAX_CONCURRENT, PUSH_QUEUE, randomInt, RATED_PUSH, RATED_PUSH_QUEUE } from './workload.js';

export interface PushOptions {
  /** How long the producers add. */
  readonly addSeconds: number;
  /** Tasks per second added to the concurrency-bound queue. */
  readonly hooksPerSecond: number;
  /** The rated queue gets a burst of this many tasks every `burstEveryMs` (each burst drains at its rate). */
  readonly burst: number;
  readonly burstEveryMs: number;
  /** Servers are killed during the first this-many seconds (the rest of the run lets the last claims expire). */
  readonly killSeconds: number;
  /** Seconds from the start at which the database goes down for 3 s. */
  readonly outagesAtSeconds: readonly number[];
}

/**
 * Every task carries a 15 s dispatch deadline (App Engine's least): the
 * claim of a request that a killed server had in flight ends 15 + 30 s
 * (the claim margin) after it was made, and another server delivers it.
 */
const DEADLINE_SECONDS = 15;
/**
 * Slack of the bucket check at the sink (the exact check is on the claims).
 * The bucket is counted where tasks are claimed (PostgreSQL's clock); the
 * sink sees arrivals, each later than its claim by a latency that varies
 * (signing the token, the server's event loop, the loopback), so a window
 * at the sink may hold the claims of a window longer by the spread of those
 * latencies. 1 s at 40/s lets a window hold 40 more than the bucket; a
 * bucket not shared (each server its own) would put an excess that grows
 * with the window (2 x rate x d with three servers). The report prints the
 * least slack each run needed.
 */
export const SINK_SLACK_SECONDS = 1;
/** Every twentieth task fails its first attempt with a 500 (a retry, on the clock of the queue's backoff). */
const FAILING_EVERY = 20;

export interface PushReport {
  readonly seconds: number;
  readonly drainSeconds: number;
  readonly acknowledged: number;
  readonly unknownAdds: number;
  readonly unknownDelivered: number;
  readonly requests: number;
  readonly failedOnPurpose: number;
  readonly cutByKills: number;
  readonly delivered: number;
  readonly duplicates: number;
  readonly duplicatedTasks: number;
  readonly lost: string[];
  readonly left: number;
  readonly deadLettered: number;
  readonly phantoms: string[];
  /** The rated queue: its claims (database clock) and requests at the sink, each checked against the bucket over every window. */
  readonly rated: {
    claims: number;
    claimExcess: number;
    deliveries: number;
    excess: number;
    slackSeconds: number;
    spanSeconds: number;
  };
  readonly hooks: { deliveries: number; maxInFlight: number };
  readonly kills: { server: number; downMs: number }[];
  /** Kills that landed on a server with a request held by the sink. */
  readonly busyKills: number;
  readonly outages: Outage[];
  readonly plannedOutages: number;
  readonly chaosFailures: string[];
  readonly crashes: string[];
}

/**
 * Push delivery under chaos: the harness adds tasks to two push queues
 * (one bound by its concurrency, one by its rate and bucket) while every
 * server dispatches them to the harness's sink, one server is killed with
 * kill -9 every few seconds (requests in flight: the sink holds each
 * 20-400 ms) and the database goes down. Then it waits until both queues
 * are empty and checks: every acknowledged add delivered (a 2xx from the
 * sink) at least once, none left or dead-lettered, no delivery of a task
 * never added, the bucket never exceeded over any window, the
 * concurrency cap never exceeded; duplicates are counted.
 */
export async function runPush(bed: TestBed, options: PushOptions, log: (line: string) => void): Promise<PushReport> {
  await Promise.all(bed.fleet.slots.map((slot) => slot.waitHealthy()));
  const sink = bed.sink;
  const first = sink.deliveries.length;
  const failsOnPurpose = (d: SinkDelivery) => d.retry === 0 && Number(d.task.split('-').pop()) % FAILING_EVERY === 0;
  sink.answer = (d) => ({
    status: failsOnPurpose(d) ? 500 : 200,
    delayMs: d.queue === PUSH_QUEUE ? randomInt(20, 400) : 0,
  });
  let db = new pg.Client({ connectionString: bed.databaseUrl });
  db.on('error', () => {}); // the outage ends its connection; a new one reads the results
  await db.connect();
  await installClaimRecorder(db);
  const producer = await openTaskQueue({
    databaseUrl: bed.databaseUrl,
    config: bed.configPath,
    dispatch: false,
    cleanupIntervalMs: 0,
    poolSize: 6,
  });
  const acknowledged = new Map<string, string>();
  const unknown = new Set<string>();
  const started = now();
  const elapsed = () => (now() - started) / 1000;
  const add = async (queue: string, names: string[]) => {
    try {
      await producer
        .getQueue(queue)
        .add(names.map((name) => ({ name, payload: name, dispatchDeadlineSeconds: DEADLINE_SECONDS })));
      for (const name of names) acknowledged.set(name, queue);
    } catch {
      for (const name of names) unknown.add(name);
      await sleep(200);
    }
  };
  const stamp = Date.now();
  let next = 0;
  const names = (prefix: string, n: number) => Array.from({ length: n }, () => `${prefix}-${stamp}-${next++}`);
  const hooksLoop = async () => {
    const perBatch = 10;
    const everyMs = (1000 * perBatch * 4) / options.hooksPerSecond;
    while (elapsed() < options.addSeconds) {
      const turn = now();
      await add(PUSH_QUEUE, names('hook', perBatch));
      await sleep(Math.max(0, everyMs - (now() - turn)));
    }
  };
  const burstLoop = async () => {
    while (elapsed() < options.addSeconds) {
      const turn = now();
      for (let i = 0; i < options.burst; i += 50)
        await add(RATED_PUSH_QUEUE, names('rated', Math.min(50, options.burst - i)));
      await sleep(Math.max(0, options.burstEveryMs - (now() - turn)));
    }
  };
  const chaos = new Chaos();
  const chaosDone = runPushChaos(bed, options, elapsed, chaos);
  const progress = setInterval(
    () =>
      log(
        `  push: ${acknowledged.size} added, ${sink.deliveries.length - first} requests at the sink, ${chaos.kills.length} kills, ${chaos.outages.length} outages`,
      ),
    10_000,
  );
  try {
    const [busyKills] = await Promise.all([chaosDone, burstLoop(), ...Array.from({ length: 4 }, hooksLoop)]);
    const addsDone = now();
    await producer.close();
    // The outage broke the recorder's connection too.
    await db.end().catch(() => {});
    db = new pg.Client({ connectionString: bed.databaseUrl });
    db.on('error', () => {});
    await db.connect();
    const queues = [PUSH_QUEUE, RATED_PUSH_QUEUE];
    const count = async (table: string) =>
      Number(
        (
          await db.query<{ n: string }>(
            `select count(*) as n from taskqueue.${table} t join taskqueue.queues q on q.id = t.queue_id where q.name = any($1)`,
            [queues],
          )
        ).rows[0]!.n,
      );
    // The last kill's claims end 45 s after it; a retry's backoff is at most 2 s.
    const drainDeadline = now() + (DEADLINE_SECONDS + 30 + 60) * 1000;
    let left = await count('tasks');
    while (left > 0 && now() < drainDeadline) {
      await sleep(500);
      left = await count('tasks');
    }
    const drainSeconds = (now() - addsDone) / 1000;
    const deadLettered = await count('task_dead_letters');
    const ratedClaims = await claimTimes(db, RATED_PUSH_QUEUE);
    await removeClaimRecorder(db);
    return report();

    function report(): PushReport {
      const deliveries = sink.deliveries.slice(first);
      const answered = new Map<string, number>();
      for (const d of deliveries)
        if (d.status !== null && d.status >= 200 && d.status < 300 && !d.cut)
          answered.set(d.task, (answered.get(d.task) ?? 0) + 1);
      const rated = deliveries.filter((d) => d.queue === RATED_PUSH_QUEUE).map((d) => d.at);
      const window = worstBucketExcess(rated, RATED_PUSH.ratePerSecond, RATED_PUSH.bucketSize);
      const duplicates = [...answered.values()].filter((n) => n > 1);
      return {
        seconds: elapsed(),
        drainSeconds,
        acknowledged: acknowledged.size,
        unknownAdds: unknown.size,
        unknownDelivered: [...unknown].filter((name) => answered.has(name)).length,
        requests: deliveries.length,
        failedOnPurpose: deliveries.filter((d) => d.status === 500).length,
        cutByKills: deliveries.filter((d) => d.cut).length,
        delivered: answered.size,
        duplicates: duplicates.reduce((sum, n) => sum + n - 1, 0),
        duplicatedTasks: duplicates.length,
        lost: [...acknowledged.keys()].filter((name) => !answered.has(name)),
        left,
        deadLettered,
        phantoms: [...new Set(deliveries.map((d) => d.task))].filter(
          (name) => !acknowledged.has(name) && !unknown.has(name),
        ),
        rated: {
          claims: ratedClaims.length,
          claimExcess: worstBucketExcess(ratedClaims, RATED_PUSH.ratePerSecond, RATED_PUSH.bucketSize).excess,
          deliveries: rated.length,
          excess: window.excess,
          slackSeconds: window.slackSeconds,
          spanSeconds: rated.length ? (Math.max(...rated) - Math.min(...rated)) / 1000 : 0,
        },
        hooks: { deliveries: deliveries.length - rated.length, maxInFlight: sink.maxInFlight(PUSH_QUEUE) },
        kills: chaos.kills,
        busyKills,
        outages: chaos.outages,
        plannedOutages: options.outagesAtSeconds.length,
        chaosFailures: chaos.failures,
        crashes: bed.fleet.slots.flatMap((slot) => slot.crashes),
      };
    }
  } finally {
    clearInterval(progress);
    await db.end().catch(() => {});
    await producer.close().catch(() => {});
  }
}

function verdicts(r: PushReport): [boolean, string][] {
  const sample = (names: string[]) => (names.length ? `: ${names.slice(0, 5).join(', ')}` : '');
  return [
    [
      r.lost.length === 0 && r.left === 0 && r.deadLettered === 0,
      `every acknowledged task delivered at least once (${r.lost.length} lost${sample(r.lost)}, ${r.left} left, ${r.deadLettered} dead-lettered)`,
    ],
    [r.phantoms.length === 0, `no delivery of a task never added (${r.phantoms.length}${sample(r.phantoms)})`],
    [
      r.rated.claims > 0 && r.rated.claimExcess <= 1e-6,
      `${RATED_PUSH_QUEUE}'s bucket (${RATED_PUSH.ratePerSecond}/s, ${RATED_PUSH.bucketSize}) never exceeded over any window of its ${r.rated.claims} claims (database clock, no slack): ` +
        `the fullest window ${r.rated.claimExcess > 0 ? `${r.rated.claimExcess.toFixed(2)} over` : `${(-r.rated.claimExcess).toFixed(2)} under`} bucket + rate x d`,
    ],
    [
      r.rated.slackSeconds <= SINK_SLACK_SECONDS,
      `nor at the sink, within ${SINK_SLACK_SECONDS * 1000} ms of slack: ${r.rated.deliveries} requests over ${r.rated.spanSeconds.toFixed(1)} s, the fullest window ` +
        (r.rated.excess > 0
          ? `${r.rated.excess.toFixed(1)} over with none (needs ${(r.rated.slackSeconds * 1000).toFixed(0)} ms)`
          : `${(-r.rated.excess).toFixed(1)} under with none`),
    ],
    [
      r.hooks.maxInFlight <= PUSH_MAX_CONCURRENT,
      `${PUSH_QUEUE}'s max-concurrent-requests (${PUSH_MAX_CONCURRENT}) never exceeded at the sink (at most ${r.hooks.maxInFlight})`,
    ],
    [
      r.busyKills > 0 && r.cutByKills > 0,
      `kill -9 with requests in flight (${r.busyKills} of ${r.kills.length} kills on a server with requests held by the sink; ${r.cutByKills} requests cut)`,
    ],
    [
      r.outages.length >= r.plannedOutages && r.chaosFailures.length === 0,
      `database outages survived (${r.outages.length} of ${r.plannedOutages})${r.chaosFailures.map((f) => `; ${f}`).join('')}`,
    ],
    [r.crashes.length === 0, `no server crashed (${r.crashes.length})${r.crashes.map((c) => `\n${c}`).join('')}`],
  ];
}

export function describePush(r: PushReport): string[] {
  const outages = r.outages.map((o) => `${((o.backAt - o.stoppedAt) / 1000).toFixed(1)} s down`).join(', ');
  const downs = r.kills.map((k) => k.downMs / 1000).sort((a, b) => a - b);
  return [
    `push: ${r.acknowledged} adds acknowledged (${r.unknownAdds} unanswered, of which ${r.unknownDelivered} delivered) in ${r.seconds.toFixed(0)} s (queues empty ${r.drainSeconds.toFixed(0)} s after the last add); ` +
      `${r.kills.length} kill -9${downs.length ? ` (each server back in ${downs[0]!.toFixed(1)}-${downs[downs.length - 1]!.toFixed(1)} s)` : ''}, ${r.outages.length} outage(s)${outages ? ` (${outages})` : ''}`,
    `push: ${r.requests} requests at the sink (${r.hooks.deliveries} to ${PUSH_QUEUE}, ${r.rated.deliveries} to ${RATED_PUSH_QUEUE}): ${r.delivered} tasks delivered, ` +
      `${r.failedOnPurpose} failed on purpose (500), ${r.cutByKills} cut by kills; duplicates: ${r.duplicates} extra 2xx deliveries of ${r.duplicatedTasks} tasks`,
    ...verdicts(r).map(([ok, line]) => `${ok ? 'ok  ' : 'FAIL'} ${line}`),
  ];
}

export function pushPassed(r: PushReport): boolean {
  return verdicts(r).every(([ok]) => ok);
}
