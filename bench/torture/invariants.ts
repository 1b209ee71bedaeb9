import type { FinalState } from './final-state.js';
import type { Ledger, LeaseSighting } from './ledger.js';
import { payloadOf } from './payloads.js';
import { MAX_PAYLOAD, RETRY_LIMIT, STORAGE_LIMIT } from './workload.js';

/** One invariant: how many times it was broken, and a few examples. */
export interface Verdict {
  readonly name: string;
  readonly checked: number;
  readonly violations: number;
  readonly examples: string[];
}

class Tally {
  checked = 0;
  violations = 0;
  readonly examples: string[] = [];
  constructor(readonly name: string) {}
  check(ok: boolean, example: () => string): void {
    this.checked += 1;
    if (ok) return;
    this.violations += 1;
    if (this.examples.length < 5) this.examples.push(example());
  }
  verdict(): Verdict {
    return { name: this.name, checked: this.checked, violations: this.violations, examples: this.examples };
  }
}

const CLOCK_TOLERANCE_MS = 50;

/** When the lease began by the database's clock: its expiry minus its length. */
function grantUsec(sighting: LeaseSighting): number {
  return sighting.expiryUsec - sighting.leaseSecs * 1_000_000;
}

function describe(name: string, a: LeaseSighting, b: LeaseSighting): string {
  return (
    `${name}: consumer ${a.consumer} leased it [${a.start.toFixed(1)}, ${a.end.toFixed(1)}] ms until ${a.expiryUsec} µs; ` +
    `consumer ${b.consumer} leased it [${b.start.toFixed(1)}, ${b.end.toFixed(1)}] ms until ${b.expiryUsec} µs`
  );
}

/**
 * The invariants, from what clients saw (and, for what became of every
 * acknowledged add, the tables at the end). Lease checks use the client's
 * request times (a second lease answered before the first lease's expiry is
 * a double lease, whatever the server says) and, stricter, the database's
 * own clock (a lease granted before the previous one expired).
 */
export function checkInvariants(ledger: Ledger, final: FinalState, maxStorageSampleBytes: number): Verdict[] {
  const doubleByClient = new Tally('no task held by two unexpired leases (client request times)');
  const doubleByServer = new Tally('no task leased before its previous lease expired (database clock)');
  const retryCounts = new Tally('retry_count rises with every lease of a task');
  // The client-time check above is only as good as the two clocks' agreement: every lease's
  // start by the database's clock must fall within its request as the client timed it.
  const clocks = new Tally(`every lease began within its request (clocks agree within ${CLOCK_TOLERANCE_MS} ms)`);
  const retryLimit = new Tally(`retry limit (${RETRY_LIMIT}) never passed`);
  const deletedReturned = new Tally('no deleted task returned by a later lease');
  const payloads = new Tally('payloads byte for byte');
  const lost = new Tally('no acknowledged add lost');
  const deletedGone = new Tally('acknowledged deletes stay deleted');
  const refused = new Tally('adds refused for storage do not exist');
  const storage = new Tally(`storage limit (${STORAGE_LIMIT} bytes) never passed by more than one task`);

  const duplicates = new Tally('no task twice in one lease answer');
  duplicates.checked = ledger.leaseCalls;
  for (const name of ledger.duplicatesInOneLease) duplicates.check(false, () => name);

  for (const [name, sightings] of ledger.leases) {
    const byGrant = [...sightings].sort((a, b) => grantUsec(a) - grantUsec(b));
    for (let i = 1; i < byGrant.length; i += 1) {
      const a = byGrant[i - 1]!;
      const b = byGrant[i]!;
      doubleByClient.check(b.end * 1000 >= a.expiryUsec, () => describe(name, a, b));
      doubleByServer.check(grantUsec(b) >= a.expiryUsec, () => describe(name, a, b));
      retryCounts.check(b.retryCount > a.retryCount, () => `${name}: retry_count ${a.retryCount} then ${b.retryCount}`);
    }
    // Names of the storage-limited queue (no retry limit) start with `l`.
    if (!name.startsWith('l')) {
      retryLimit.check(sightings.length <= RETRY_LIMIT, () => `${name}: leased ${sightings.length} times`);
      for (const s of sightings)
        retryLimit.check(s.retryCount <= RETRY_LIMIT, () => `${name}: retry_count ${s.retryCount}`);
    }
    for (const s of sightings) {
      const grantMs = grantUsec(s) / 1000;
      clocks.check(
        grantMs >= s.start - CLOCK_TOLERANCE_MS && grantMs <= s.end + CLOCK_TOLERANCE_MS,
        () => `${name}: granted at ${grantMs} ms, request [${s.start}, ${s.end}]`,
      );
    }
    for (const s of sightings) payloads.check(s.payloadOk, () => `${name}: leased payload differs`);
    const deletedAt = ledger.acknowledgedDeletes.get(name);
    if (deletedAt !== undefined) {
      for (const s of sightings)
        deletedReturned.check(
          s.start <= deletedAt,
          () => `${name}: deleted at ${deletedAt}, leased again at ${s.start}`,
        );
    }
  }

  for (const [name, add] of ledger.acknowledgedAdds) {
    const expected = name.startsWith('probe-') ? Buffer.from(name) : payloadOf(name, MAX_PAYLOAD);
    const live = final.tasks.get(name);
    const tombstone = final.tombstones.get(name);
    const dead = final.deadLetters.get(name);
    if (live) {
      lost.check(live.queue === add.queue, () => `${name}: added to ${add.queue}, found in ${live.queue}`);
      payloads.check(live.payload.equals(expected), () => `${name}: stored payload differs`);
    } else if (tombstone === 'deleted') {
      lost.check(ledger.attemptedDeletes.has(name), () => `${name}: deleted, but no client ever deleted it`);
    } else if (tombstone === 'retry_limit') {
      lost.check(dead !== undefined, () => `${name}: dropped by the retry limit without a dead letter`);
      if (dead) {
        payloads.check(dead.payload.equals(expected), () => `${name}: dead letter's payload differs`);
        retryLimit.check(dead.retryCount <= RETRY_LIMIT, () => `${name}: died after ${dead.retryCount} leases`);
      }
    } else {
      lost.check(
        false,
        () => `${name}: acknowledged at ${add.at.toFixed(1)} ms, now neither a task, a tombstone nor a dead letter`,
      );
    }
  }
  for (const name of ledger.acknowledgedDeletes.keys()) {
    deletedGone.check(!final.tasks.has(name), () => `${name}: deleted (acknowledged) but still a task`);
  }
  for (const name of ledger.refusedAdds) {
    refused.check(!final.tasks.has(name) && !final.tombstones.has(name), () => `${name}: refused with 507 but exists`);
  }
  // The largest task a producer sends to the limited queue: payload, name and no tag.
  const largestTask = MAX_PAYLOAD + 16;
  storage.check(maxStorageSampleBytes <= STORAGE_LIMIT + largestTask, () => `sampled ${maxStorageSampleBytes} bytes`);

  return [
    doubleByClient,
    doubleByServer,
    clocks,
    duplicates,
    retryCounts,
    retryLimit,
    deletedReturned,
    payloads,
    lost,
    deletedGone,
    refused,
    storage,
  ].map((tally) => tally.verdict());
}
