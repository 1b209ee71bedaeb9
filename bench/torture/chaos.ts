import type { Ledger } from './ledger.js';
import type { OwnPostgres } from './own-postgres.js';
import { now, type RestCaller } from './rest-caller.js';
import type { ServerFleet } from './server-fleet.js';
import { sleep } from './sleep.js';
import { MAIN_QUEUE, queuePath } from './workload.js';

export interface ChaosPlan {
  /** Mean time between two `kill -9`s (each waits 0.5x to 1.5x of it). */
  readonly killEveryMs: number;
  /** The run goes on past its op count until this many kills have happened. */
  readonly minKills: number;
  /** Operation counts at which the database is stopped (`-m immediate`), one outage each. */
  readonly outageAtOps: readonly number[];
  /** How long the database stays down. */
  readonly outageMs: number;
}

/** One database outage as the harness lived it (client ms). */
export interface Outage {
  readonly stoppedAt: number;
  /** When pg_ctl start returned (crash recovery done, accepting connections). */
  readonly backAt: number;
  /** Per server: when its first add after the restart was acknowledged (no server was restarted). */
  readonly resumedAt: number[];
}

/**
 * The chaos: a `kill -9` of a random server every few seconds, restarted
 * at once on its port, and at given points the database stopped with
 * `-m immediate` and started again, all while the load runs. One thing at
 * a time: no kill during an outage and its recovery, so that "service
 * resumes without restarting servers" is what is measured.
 */
export class Chaos {
  readonly kills: { server: number; downMs: number }[] = [];
  readonly outages: Outage[] = [];
  readonly failures: string[] = [];

  async run(
    plan: ChaosPlan,
    fleet: ServerFleet,
    database: OwnPostgres,
    caller: RestCaller,
    ledger: Ledger,
    ops: () => number,
    stopped: () => boolean,
  ): Promise<void> {
    const outagesLeft = [...plan.outageAtOps].sort((a, b) => a - b);
    while (!stopped()) {
      await sleep(plan.killEveryMs * (0.5 + Math.random()));
      if (stopped()) break;
      if (outagesLeft.length > 0 && ops() >= outagesLeft[0]!) {
        outagesLeft.shift();
        await this.outage(plan, fleet, database, caller, ledger);
        continue;
      }
      const slot = fleet.slots[Math.floor(Math.random() * fleet.slots.length)]!;
      try {
        const { downMs } = await fleet.killAndRestart(slot);
        this.kills.push({ server: slot.index, downMs });
      } catch (error) {
        this.failures.push(`server ${slot.index} did not come back after kill -9: ${String(error)}`);
        return;
      }
    }
  }

  /**
   * Stops the database (`-m immediate`) for plan.outageMs and starts it
   * again; resolves when every server has acknowledged an add (a probe into
   * the main queue) after its return.
   */
  async outage(
    plan: Pick<ChaosPlan, 'outageMs'>,
    fleet: ServerFleet,
    database: OwnPostgres,
    caller: RestCaller,
    ledger: Ledger,
  ): Promise<void> {
    const stoppedAt = now();
    await database.stopImmediate();
    await sleep(plan.outageMs);
    await database.start();
    const backAt = now();
    const index = this.outages.length;
    const resumedAt = await Promise.all(
      fleet.slots.map(async (slot) => {
        for (let attempt = 0; ; attempt += 1) {
          const name = `probe-${index}-${slot.index}-${attempt}`;
          ledger.unknownAdds.add(name);
          const exchange = await caller.call(
            'POST',
            `${queuePath(MAIN_QUEUE)}/tasks`,
            {
              body: JSON.stringify({ id: name, payloadBase64: Buffer.from(name).toString('base64') }),
              headers: { 'content-type': 'application/json' },
            },
            slot.index,
          );
          if (exchange.status === 200) {
            ledger.unknownAdds.delete(name);
            ledger.acknowledgedAdds.set(name, { queue: MAIN_QUEUE, at: exchange.end });
            return exchange.end;
          }
          if (now() - backAt > 60_000) {
            this.failures.push(
              `server ${slot.index} did not resume within 60 s of the database's return (last answer ${exchange.status})`,
            );
            return Number.POSITIVE_INFINITY;
          }
          await sleep(100);
        }
      }),
    );
    this.outages.push({ stoppedAt, backAt, resumedAt });
  }
}
