import { afterEach, describe, expect, it } from 'vitest';
import type { TaskLeaseParams } from '../../src/core/task-store.js';
import { combinableLease, leaseCombineKey } from '../../src/store/combined-statements.js';
import { leaseTermsOf, type LeaseTerms } from '../../src/store/lease-tasks.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

const base: TaskLeaseParams = {
  queueId: 7,
  queueName: 'q',
  maxTasks: 2,
  leaseMs: 60_000,
  filter: { kind: 'any' },
  maxLeases: null,
  leaseRate: null,
  payloadBudgetBytes: 32 << 20,
};

/**
 * For every term a lease statement binds, a lease that differs from `base`
 * in that term alone. Typed by LeaseTerms: a term added to the statement
 * is a compile error here until it has its variant.
 */
const differsIn: { readonly [Term in keyof LeaseTerms]: readonly Partial<TaskLeaseParams>[] } = {
  queueId: [{ queueId: 8 }],
  leaseMs: [{ leaseMs: 61_000 }],
  maxLeases: [{ maxLeases: 5 }],
  tag: [{ filter: { kind: 'tag', tag: 'x' } }, { filter: { kind: 'tag', tag: 'y' } }],
  // A lease with a rate never shares a statement (each call counts as one call).
  rateWindowSeconds: [{ leaseRate: { calls: 10, windowSeconds: 60 } }],
  rateCalls: [{ leaseRate: { calls: 10, windowSeconds: 1 } }],
  // Added up over the callers of a combined lease, not shared (see below).
  maxTasks: [{ maxTasks: 3 }],
  payloadBudgetBytes: [{ payloadBudgetBytes: 16 << 20 }],
};
const SUMMED: readonly (keyof LeaseTerms)[] = ['maxTasks', 'payloadBudgetBytes'];

describe('the lease combine key', () => {
  it('every term the statement binds has its variant here', () => {
    expect(Object.keys(differsIn).sort()).toEqual(Object.keys(leaseTermsOf(base)).sort());
  });

  it('two leases differing in any one shared term, or in the shape, never share a statement', () => {
    const leases: TaskLeaseParams[] = [
      base,
      { ...base, filter: { kind: 'oldest' } },
      ...Object.entries(differsIn)
        .filter(([term]) => !SUMMED.includes(term as keyof LeaseTerms))
        .flatMap(([, variants]) => variants.map((variant) => ({ ...base, ...variant }))),
    ];
    for (const [i, a] of leases.entries()) {
      for (const b of leases.slice(i + 1)) {
        // A lease that may not be combined at all runs alone.
        if (combinableLease(a) && combinableLease(b)) expect(leaseCombineKey(a)).not.toBe(leaseCombineKey(b));
      }
    }
    // The rate's terms make a lease run alone (each call counts as one call).
    expect(combinableLease({ ...base, ...differsIn.rateCalls[0] })).toBe(false);
  });

  it('leases differing only in the terms a combined lease adds up share one', () => {
    for (const term of SUMMED) {
      for (const variant of differsIn[term]) {
        const other = { ...base, ...variant };
        expect(combinableLease(other)).toBe(true);
        expect(leaseCombineKey(other)).toBe(leaseCombineKey(base));
      }
    }
    // Unless the budget can bind: then each caller has its own, and the lease runs alone.
    expect(combinableLease({ ...base, maxTasks: 33 })).toBe(false);
    expect(combinableLease({ ...base, maxTasks: 32 })).toBe(true);
    expect(combinableLease({ ...base, maxTasks: 2, payloadBudgetBytes: (1 << 20) * 2 - 1 })).toBe(false);
  });
});

describe.each(ENGINES)('concurrent leases with different terms (%s)', (engine) => {
  let t: TestService | undefined;
  afterEach(async () => t?.close());

  it('each gets the lease it asked for, though they arrive while the queue has statements in flight', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const queue = t.service.getQueue('q');
    await queue.add(Array.from({ length: 12 }, (_, i) => ({ name: `t${i}` })));
    // Two statements of a key run at once, the rest wait and go together: with
    // one key for both terms, the waiting calls would share the first waiter's lease.
    const asked = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? 60_000 : 600_000));
    const before = Date.now() * 1000;
    const results = await Promise.all(
      asked.map((leaseMs) => t!.store.leaseTasks({ ...base, queueId: queue.id, leaseMs, maxTasks: 1 })),
    );
    const after = Date.now() * 1000;
    results.forEach((result, i) => {
      expect(result.tasks).toHaveLength(1);
      const eta = result.tasks[0]!.etaUsec;
      expect(eta).toBeGreaterThanOrEqual(before + asked[i]! * 1000 - 5_000_000);
      expect(eta).toBeLessThanOrEqual(after + asked[i]! * 1000 + 5_000_000);
    });
  });
});
