import type { Chaos } from './chaos.js';
import { Ledger } from './ledger.js';
import type { ServerSlot } from './server-fleet.js';
import { sleep } from './sleep.js';
import { pidsOwningPorts } from './socket-owners.js';
import type { TestBed } from './test-bed.js';
import { randomInt } from './workload.js';

export interface PushChaosPlan {
  /** Seconds from the start at which the database goes down (3 s each). */
  readonly outagesAtSeconds: readonly number[];
  /** No kill starts after this many seconds. */
  readonly killSeconds: number;
}

/**
 * The push phase's chaos: a `kill -9` every 1.5-4.5 s of a random server
 * among those with a request held by the sink (any, when none has),
 * and the database stopped at given times. Unlike the load phase's, it does
 * not wait for the killed server to be healthy again before the next kill
 * (a restart takes 5-20 s on the loaded machine, which would leave one or
 * two kills per run), but it keeps one server alive and dispatching, and
 * waits for every restart before an outage (a server started while the
 * database is down is another test). Kills, outages and failures are kept
 * in `chaos`.
 */
/** Answers how many kills landed on a server with a request held by the sink. */
export async function runPushChaos(
  bed: TestBed,
  plan: PushChaosPlan,
  elapsedSeconds: () => number,
  chaos: Chaos,
): Promise<number> {
  let busyKills = 0;
  const restarting = new Map<ServerSlot, Promise<void>>();
  const outages = [...plan.outagesAtSeconds].sort((a, b) => a - b);
  while (elapsedSeconds() < plan.killSeconds || outages.length > 0) {
    await sleep(randomInt(1500, 4500));
    if (outages.length > 0 && elapsedSeconds() >= outages[0]!) {
      outages.shift();
      await Promise.all(restarting.values());
      await chaos.outage({ outageMs: 3000 }, bed.fleet, bed.database, bed.caller, new Ledger());
      continue;
    }
    if (elapsedSeconds() >= plan.killSeconds) continue;
    const alive = bed.fleet.slots.filter((slot) => !restarting.has(slot));
    if (alive.length <= 1) continue;
    // Preferably one with a request the sink holds: a kill with requests in flight.
    const owners = pidsOwningPorts(
      alive.flatMap((slot) => (slot.pid ? [slot.pid] : [])),
      bed.sink.heldPorts(),
    );
    const busy = alive.filter((slot) => slot.pid !== undefined && owners.has(slot.pid));
    const candidates = busy.length > 0 ? busy : alive;
    const slot = candidates[randomInt(0, candidates.length - 1)]!;
    if (busy.length > 0) busyKills += 1;
    const restart = bed.fleet
      .killAndRestart(slot)
      .then(({ downMs }) => void chaos.kills.push({ server: slot.index, downMs }))
      .catch(
        (error: unknown) =>
          void chaos.failures.push(`server ${slot.index} did not come back after kill -9: ${String(error)}`),
      )
      .finally(() => restarting.delete(slot));
    restarting.set(slot, restart);
  }
  await Promise.all(restarting.values());
  return busyKills;
}
