import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DISPATCHER_LEASE_MS,
  DispatcherLiveness,
  FENCE_MARGIN_MS,
  HEARTBEAT_MS,
} from '../../src/core/push/dispatcher/dispatcher-liveness.js';
import type { DispatcherHeartbeat, PushStore } from '../../src/core/push/dispatcher/push-store.js';

/** The store calls of a liveness, answered by the test: a heartbeat that never returns is a database out of reach. */
function fakeStore() {
  const calls: string[] = [];
  /** When each heartbeat was sent (the fake clock). */
  const beats: number[] = [];
  let nextId = 1;
  /** While false, registrations fail (connection refused). */
  let reachable = true;
  let beat: () => Promise<DispatcherHeartbeat> = () => Promise.resolve({ alive: true, recoveredQueueIds: [] });
  const store = {
    registerDispatcher: () => {
      calls.push('register');
      return reachable ? Promise.resolve(String(nextId++)) : Promise.reject(new Error('ECONNREFUSED'));
    },
    heartbeat: ({ dispatcherId }: { dispatcherId: string }) => {
      calls.push(`heartbeat ${dispatcherId}`);
      beats.push(Date.now());
      return beat();
    },
    retireDispatcher: (id: string) => {
      calls.push(`retire ${id}`);
      return Promise.resolve([]);
    },
  };
  return {
    calls,
    beats,
    store: store as unknown as PushStore,
    answer(next: () => Promise<DispatcherHeartbeat>) {
      beat = next;
    },
    /** The database out of reach until the returned function is called: heartbeats hang, registrations fail. */
    unreachable(): () => void {
      reachable = false;
      beat = () => new Promise(() => {});
      return () => {
        reachable = true;
        beat = () => Promise.resolve({ alive: true, recoveredQueueIds: [] });
      };
    },
  };
}

/** Fake timers, and the liveness's clock on them: no test waits. */
async function started(fake: ReturnType<typeof fakeStore>, onRecovered?: (ids: readonly number[]) => void) {
  vi.useFakeTimers();
  const liveness = new DispatcherLiveness({
    store: fake.store,
    clock: () => Date.now(),
    ...(onRecovered ? { onRecovered } : {}),
  });
  liveness.start();
  await vi.advanceTimersByTimeAsync(0);
  return liveness;
}

describe("a push dispatcher's liveness", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('cuts its requests and stops claiming before its row could expire when its heartbeat is not written', async () => {
    const fake = fakeStore();
    const liveness = await started(fake);
    const term = liveness.current()!;
    expect(term.id).toBe('1');
    // Heartbeats written for a while: the term holds.
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS * 4);
    expect(liveness.holds(term)).toBe(true);
    const lastWritten = fake.beats.at(-1)!;
    // Then the database is out of reach: the heartbeat hangs.
    const reach = fake.unreachable();
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS);
    expect(term.signal.aborted).toBe(false);
    // Its row expires a lease after the last heartbeat written at the earliest; the requests are cut the margin before.
    await vi.advanceTimersByTimeAsync(lastWritten + DISPATCHER_LEASE_MS - FENCE_MARGIN_MS - Date.now() - 1);
    expect(term.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(term.signal.aborted).toBe(true);
    expect(liveness.current()).toBeNull();
    expect(liveness.holds(term)).toBe(false);
    // No claim while it registers again; once the database answers, a new row (the old one's claims are recovered as a dead process's).
    await vi.advanceTimersByTimeAsync(DISPATCHER_LEASE_MS);
    expect(liveness.current()).toBeNull();
    reach();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(liveness.current()?.id).toBe('2');
    await liveness.stop();
    expect(fake.calls.at(-1)).toBe('retire 2');
  });

  it('ends its term at once when its heartbeat finds its row expired, and passes on the queues it recovered', async () => {
    const fake = fakeStore();
    const recovered: number[][] = [];
    const liveness = await started(fake, (ids) => recovered.push([...ids]));
    const term = liveness.current()!;
    fake.answer(() => Promise.resolve({ alive: true, recoveredQueueIds: [7] }));
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS);
    expect(recovered).toEqual([[7]]);
    fake.answer(() => Promise.resolve({ alive: false, recoveredQueueIds: [] }));
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS);
    expect(term.signal.aborted).toBe(true);
    expect(liveness.current()?.id).toBe('2');
    await liveness.stop();
    expect(fake.calls).toEqual(['register', 'heartbeat 1', 'heartbeat 1', 'register', 'retire 2']);
  });
});
