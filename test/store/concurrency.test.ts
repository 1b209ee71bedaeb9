import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.js';
import { leaseTasks } from '../../src/store/lease-tasks.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

/**
 * Many leasers, short leases, some abandoned work: no task may ever be held
 * by two live leases, no lease call may return more than it asked for (the
 * re-executed sub-select of PostgreSQL bug #15715 would), and every task
 * must be deleted exactly once.
 */
describe.each(ENGINES)('concurrent leasing on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const TASKS = engine === 'postgres' ? 20_000 : 2_000;
  const LEASERS = 16;
  const LEASE_MS = 250;
  const BATCH = 25;

  it(`${LEASERS} leasers drain ${TASKS} tasks with no double lease`, async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]), { poolSize: 20 });
    const q = t.service.getQueue('q');
    for (let i = 0; i < TASKS; i += 100) {
      await q.add(Array.from({ length: 100 }, (_, j) => ({ name: `task-${i + j}`, payload: String(i + j) })));
    }

    const grants = new Map<string, Array<{ start: number; end: number }>>();
    const deletions = new Map<string, number>();
    let deleted = 0;
    let maxReturned = 0;
    let calls = 0;
    let abandoned = 0;

    const record = (task: Task) => {
      const list = grants.get(task.name) ?? [];
      list.push({ start: task.etaUsec - LEASE_MS * 1000, end: task.etaUsec });
      grants.set(task.name, list);
    };

    const leaser = async (id: number) => {
      const deadline = Date.now() + 120_000;
      while (deleted < TASKS && Date.now() < deadline) {
        const tasks = await q.leaseTasks({ lease: LEASE_MS, unit: 'milliseconds', maxTasks: BATCH });
        calls++;
        maxReturned = Math.max(maxReturned, tasks.length);
        if (tasks.length === 0) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        tasks.forEach(record);
        // Every 7th batch of leaser 0..3 is "lost" (the worker crashed): its
        // leases must expire and the tasks come back to someone else.
        if (id < 4 && calls % 7 === 0) {
          abandoned += tasks.length;
          continue;
        }
        const outcome = await q.deleteTask(tasks);
        tasks.forEach((task, i) => {
          if (outcome[i]) {
            deleted++;
            deletions.set(task.name, (deletions.get(task.name) ?? 0) + 1);
          }
        });
      }
    };
    await Promise.all(Array.from({ length: LEASERS }, (_, id) => leaser(id)));

    expect(deleted).toBe(TASKS);
    expect(deletions.size).toBe(TASKS);
    expect([...deletions.values()].every((n) => n === 1)).toBe(true);
    expect(maxReturned).toBeLessThanOrEqual(BATCH);
    expect(abandoned).toBeGreaterThan(0);

    // No two grants of one task overlap: each starts when (or after) the previous one expired.
    let overlaps = 0;
    let regrants = 0;
    for (const list of grants.values()) {
      list.sort((a, b) => a.start - b.start);
      for (let i = 1; i < list.length; i++) {
        regrants++;
        if (list[i]!.start < list[i - 1]!.end) overlaps++;
      }
    }
    expect(overlaps).toBe(0);
    expect(regrants).toBeGreaterThan(0);
    const [left] = await t.sql<{ n: string }>(`select count(*)::text as n from ${t.schema}.tasks`);
    expect(Number(left!.n)).toBe(0);
    const [counted] = await t.sql<{ n: string }>(
      `select coalesce(sum(task_count), 0)::text as n from ${t.schema}.queue_storage`,
    );
    expect(Number(counted!.n)).toBe(0);
  });
});

/**
 * The lease statement itself, without the store's combining of concurrent
 * calls (which deals results out by position and so could hide an
 * over-long result): many concurrent small leases, each must return at most
 * what it asked for, and no task twice.
 */
describe.each(ENGINES)('the lease statement under concurrency on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  it('never returns more rows than asked, nor a task twice', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]), { poolSize: 16 });
    const q = t.service.getQueue('q');
    const total = engine === 'postgres' ? 3_000 : 600;
    for (let i = 0; i < total; i += 100) await q.add(Array.from({ length: 100 }, (_, j) => ({ name: `s-${i + j}` })));
    const ctx = { db: t.db, schema: t.schema };
    const queueId = Number((await t.sql<{ id: number }>(`select id from ${t.schema}.queues where name = 'q'`))[0]!.id);
    const seen = new Set<string>();
    let worstExcess = 0;
    let duplicates = 0;
    await Promise.all(
      Array.from({ length: 16 }, async (_, worker) => {
        for (;;) {
          const n = 1 + (worker % 5);
          const { tasks } = await leaseTasks(ctx, {
            queueId,
            queueName: 'q',
            maxTasks: n,
            leaseMs: 600_000,
            filter: { kind: 'any' },
            maxLeases: null,
            leaseRate: null,
            payloadBudgetBytes: 32 * 1024 * 1024,
          });
          if (tasks.length === 0) return;
          worstExcess = Math.max(worstExcess, tasks.length - n);
          for (const task of tasks) {
            if (seen.has(task.name)) duplicates++;
            seen.add(task.name);
          }
        }
      }),
    );
    expect(worstExcess).toBe(0);
    expect(duplicates).toBe(0);
    expect(seen.size).toBe(total);
  });
});
