import { openTaskQueue } from '../../src/index.js';
import type { SinkDelivery } from './push-sink.js';
import { now } from './rest-caller.js';
import { sleep } from './sleep.js';
import { pidsOwningPorts } from './socket-owners.js';
import type { TestBed } from './test-bed.js';
import { CAPPED_MAX_CONCURRENT, CAPPED_PUSH_QUEUE } from './workload.js';
/** Tasks added behind the two that fill the queue (the outside run's count). */
const WAITING = 14;
/**
 * How long the full queue is watched while the servers holding its claims
 * are alive: past a dispatcher's lease (15 s) and a heartbeat (3 s), so a
 * live claim taken from a live server would show.
 */
const LIVE_WATCH_MS = 20_000;
/**
 * The bound on the recovery after the kill: the lease, a heartbeat of the
 * survivor, its claim, and slack for a loaded machine. A claim alone held
 * its tasks for the deadline plus 30 s: 630 s.
 */
const RECOVERY_BOUND_S = 60;
const CLAIM_HOLD_S = 630;

export interface ClaimRecoveryReport {
  /** Servers killed: each held a request of the full queue. */
  readonly killed: number[];
  /** Requests of the queue beyond the two held, while their holders were alive (must be none). */
  readonly takenFromLive: number;
  /** From the kill until every task had a 2xx; null if not within the bound. */
  readonly recoverySeconds: number | null;
  readonly delivered: number;
  readonly expected: number;
  /** The held requests the kill cut. */
  readonly cut: number;
  readonly maxInFlight: number;
  readonly failures: string[];
}

/**
 * A push queue at its concurrency cap whose claims belong to a server that
 * is killed with kill -9 (issue 30, item 3). Two tasks fill the queue and
 * the sink holds both first attempts; 14 more wait. For 20 s nothing else
 * may be delivered (the holders are alive). Then every server holding one
 * is killed, and not restarted until the end: the servers left must
 * deliver all 16 within 60 s of the kill, where the claims' deadline lies
 * 630 s away. The sink must never hold more than two of the queue's requests.
 */
export async function runClaimRecovery(bed: TestBed, log: (line: string) => void): Promise<ClaimRecoveryReport> {
  await Promise.all(bed.fleet.slots.map((slot) => slot.waitHealthy()));
  const sink = bed.sink;
  const first = sink.deliveries.length;
  const stamp = Date.now();
  const blockers = new Set(Array.from({ length: CAPPED_MAX_CONCURRENT }, (_, i) => `blocker-${stamp}-${i}`));
  const waiting = Array.from({ length: WAITING }, (_, i) => `waiting-${stamp}-${i}`);
  const previous = sink.answer;
  // A blocker's first attempt is held past the end of the phase (until its server dies); everything else answered at once.
  sink.answer = (d) =>
    d.queue !== CAPPED_PUSH_QUEUE
      ? previous(d)
      : { status: 200, delayMs: blockers.has(d.task) && d.retry === 0 ? 3_600_000 : 0 };
  const ours = () => sink.deliveries.slice(first).filter((d) => d.queue === CAPPED_PUSH_QUEUE);
  const producer = await openTaskQueue({
    databaseUrl: bed.databaseUrl,
    config: bed.configPath,
    dispatch: false,
    cleanupIntervalMs: 0,
    poolSize: 2,
  });
  const failures: string[] = [];
  const killed: number[] = [];
  try {
    const queue = producer.getQueue(CAPPED_PUSH_QUEUE);
    await queue.add([...blockers].map((name) => ({ name, payload: name })));
    if (!(await until(() => ours().length >= blockers.size, 30_000)))
      throw new Error(`the sink got ${ours().length} of the ${blockers.size} blockers in 30 s`);
    const holders = pidsOwningPorts(
      bed.fleet.slots.flatMap((slot) => (slot.pid ? [slot.pid] : [])),
      sink.heldPorts(),
    );
    const doomed = bed.fleet.slots.filter((slot) => slot.pid !== undefined && holders.has(slot.pid));
    if (doomed.length === 0 || doomed.length === bed.fleet.slots.length)
      throw new Error(
        `${doomed.length} of ${bed.fleet.slots.length} servers hold the blockers: none would be killed or none would survive`,
      );
    await queue.add(waiting.map((name) => ({ name, payload: name })));
    log(
      `  claims: ${CAPPED_PUSH_QUEUE} full (${blockers.size} requests held by server ${doomed.map((slot) => slot.index).join(' and ')}), ${WAITING} waiting; watching ${LIVE_WATCH_MS / 1000} s`,
    );
    await sleep(LIVE_WATCH_MS);
    const takenFromLive = ours().length - blockers.size;
    // The sink stamps arrivals with performance.now().
    const killedAt = performance.now();
    for (const slot of doomed) {
      await slot.kill9();
      killed.push(slot.index);
    }
    log(
      `  claims: kill -9 of server ${killed.join(' and ')}; the others must deliver ${blockers.size + WAITING} tasks`,
    );
    const answered = () =>
      new Set(
        ours()
          .filter((d) => d.status !== null && d.status < 300 && !d.cut)
          .map((d) => d.task),
      );
    const expected = blockers.size + WAITING;
    const done = await until(() => answered().size >= expected, RECOVERY_BOUND_S * 1000);
    const lastAt = Math.max(
      ...ours()
        .filter((d) => d.status !== null && d.status < 300)
        .map((d) => d.at),
    );
    const recoverySeconds = done ? (lastAt - killedAt) / 1000 : null;
    return {
      killed,
      takenFromLive,
      recoverySeconds,
      delivered: answered().size,
      expected,
      cut: ours().filter((d: SinkDelivery) => blockers.has(d.task) && d.retry === 0 && d.cut).length,
      maxInFlight: sink.maxInFlight(CAPPED_PUSH_QUEUE),
      failures,
    };
  } finally {
    sink.answer = previous;
    await producer.close().catch(() => {});
    // Back to a whole fleet for the phases after this one.
    for (const index of killed)
      await bed.fleet
        .restart(bed.fleet.slots[index]!)
        .catch((error: unknown) => failures.push(`server ${index} did not come back: ${String(error)}`));
  }
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = now() + timeoutMs;
  while (!condition()) {
    if (now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

function verdicts(r: ClaimRecoveryReport): [boolean, string][] {
  return [
    [
      r.takenFromLive === 0,
      `no claim taken from a live server: ${r.takenFromLive} other requests of ${CAPPED_PUSH_QUEUE} while its ${CAPPED_MAX_CONCURRENT} were held for ${LIVE_WATCH_MS / 1000} s`,
    ],
    [
      r.recoverySeconds !== null,
      `after kill -9 of the server(s) holding them, the others delivered all ${r.expected} tasks (${r.delivered}) in ` +
        `${r.recoverySeconds === null ? `more than ${RECOVERY_BOUND_S}` : r.recoverySeconds.toFixed(1)} s (bound ${RECOVERY_BOUND_S} s; the claims' deadline was ${CLAIM_HOLD_S} s away)`,
    ],
    [r.cut === CAPPED_MAX_CONCURRENT, `the kill cut the ${CAPPED_MAX_CONCURRENT} held requests (${r.cut})`],
    [
      r.maxInFlight <= CAPPED_MAX_CONCURRENT,
      `${CAPPED_PUSH_QUEUE}'s max-concurrent-requests (${CAPPED_MAX_CONCURRENT}) never exceeded at the sink (at most ${r.maxInFlight})`,
    ],
    [r.failures.length === 0, `killed servers back${r.failures.map((f) => `; ${f}`).join('')}`],
  ];
}

export function describeClaimRecovery(r: ClaimRecoveryReport): string[] {
  return verdicts(r).map(([ok, line]) => `${ok ? 'ok  ' : 'FAIL'} ${line}`);
}

export function claimRecoveryPassed(r: ClaimRecoveryReport): boolean {
  return verdicts(r).every(([ok]) => ok);
}
