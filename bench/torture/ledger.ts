/** One task as a lease response gave it. Times: client ms; expiry and grant: the server's µs. */
export interface LeaseSighting {
  readonly consumer: number;
  readonly start: number;
  readonly end: number;
  readonly leaseSecs: number;
  readonly expiryUsec: number;
  readonly retryCount: number;
  readonly payloadOk: boolean;
}

/**
 * Everything the clients saw, kept for the invariant checks at the end:
 * which adds were acknowledged, every lease of every task, and when each
 * acknowledged delete came back.
 */
export class Ledger {
  /** Acknowledged adds: task name -> queue, and when the answer came (client ms). */
  readonly acknowledgedAdds = new Map<string, { queue: string; at: number }>();
  /** Adds sent whose answer never came (server killed, timeout): they may or may not exist. */
  readonly unknownAdds = new Set<string>();
  /** Every lease of each task, in the order the answers arrived. */
  readonly leases = new Map<string, LeaseSighting[]>();
  /** Acknowledged deletes: task name -> when the first 200 came back (client ms). */
  readonly acknowledgedDeletes = new Map<string, number>();
  /** Adds refused with 507 (storage limit): these tasks must not exist. */
  readonly refusedAdds = new Set<string>();
  /** Names a delete was sent for (answered or not). */
  readonly attemptedDeletes = new Set<string>();
  /** Names repeated within one lease response. */
  readonly duplicatesInOneLease: string[] = [];
  tasksLeased = 0;
  leaseCalls = 0;
  emptyLeases = 0;
  addsRefusedForStorage = 0;

  recordLease(name: string, sighting: LeaseSighting): void {
    const list = this.leases.get(name);
    if (list) list.push(sighting);
    else this.leases.set(name, [sighting]);
    this.tasksLeased += 1;
  }

  recordDelete(name: string, at: number): void {
    if (!this.acknowledgedDeletes.has(name)) this.acknowledgedDeletes.set(name, at);
  }
}
