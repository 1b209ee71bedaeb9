import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cronScheduleOf, scheduledCronJobs, withCronQueue } from '../../src/config/cron-queue.js';
import { resolveCron } from '../../src/config/resolve-config.js';
import type { CronClock } from '../../src/core/cron/cron-scheduler.js';
import type { CronStore } from '../../src/core/cron/cron-store.js';
import type { PushDispatchPlan } from '../../src/core/push/dispatcher/push-dispatch.js';
import { generateTaskName } from '../../src/core/generated-name.js';
import { TaskQueueService, type TaskQueueServiceOptions } from '../../src/core/task-queue-service.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { pushQueue } from '../helpers/push-sink.js';
import { asTaskStore, InMemoryTaskStore } from './in-memory-task-store.js';

const DAY = 24 * 3600 * 1000;

/** A cron store that records its calls and holds no jobs (the scheduler syncs, then waits). */
function recordingCronStore(calls: string[]): CronStore {
  return {
    now: async () => new Date('2026-03-01T09:00:00Z'),
    syncJobs: async (jobs) => void calls.push(`cron sync ${jobs.length}`),
    markSeen: async () => {},
    claimFiring: async () => 'claimed',
    recordFiring: async () => void calls.push('cron record'),
    listJobs: async () => [],
    firingRows: async () => [],
  };
}

/** The scheduler's clock: its waits last until the scheduler stops them, which is recorded. */
function stoppableClock(calls: string[]): CronClock {
  let tick = Date.parse('2026-03-01T09:00:00Z');
  return {
    // A millisecond on at each reading: two runs of a job get two task names.
    now: async () => new Date(tick++),
    sleep: (_ms, signal) =>
      new Promise((resolve) =>
        signal.addEventListener(
          'abort',
          () => {
            calls.push('cron stopped');
            resolve();
          },
          { once: true },
        ),
      ),
  };
}

/**
 * The service's one lifecycle: `start()` starts the cleanup job, push
 * delivery and the cron scheduler; `close()` stops them in order; push's
 * name-hold rule reads the service's clock; `cron run` is audited through
 * the store call every operator action uses.
 */
describe('TaskQueueService owns push dispatch and cron', () => {
  const dir = mkdtempSync(join(tmpdir(), 'service-lifecycle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function cronConfig() {
    const file = join(dir, 'cron.yaml');
    writeFileSync(file, 'cron:\n- name: tick\n  url: /tick\n  schedule: every 1 minutes\n');
    return (await resolveCron(file))!;
  }

  async function open(calls: string[], options: Partial<TaskQueueServiceOptions> = {}) {
    const store = new InMemoryTaskStore();
    const cron = await cronConfig();
    const config = withCronQueue(serviceConfig([pullQueue('q'), pushQueue('hooks', 'http://127.0.0.1:1')]), cron);
    const plans: PushDispatchPlan[] = [];
    const service = new TaskQueueService(asTaskStore(store), config, await store.syncQueues(config), {
      cleanupIntervalMs: 0,
      push: {
        start: (plan) => {
          plans.push(plan);
          calls.push('push started');
          return { stop: async (graceMs) => void calls.push(`push stopped ${graceMs}`), update: () => {} };
        },
        dispatch: true,
        graceMs: 250,
      },
      cron: {
        jobs: scheduledCronJobs(cron),
        store: recordingCronStore(calls),
        scheduleOf: cronScheduleOf,
        clock: stoppableClock(calls),
        firing: true,
      },
      ...options,
    });
    return { service, store, plans, ids: await store.syncQueues(config) };
  }

  it('starts nothing until start(), then push and cron; close() stops cron, then push with its grace, then the store', async () => {
    const calls: string[] = [];
    const { service, store, plans, ids } = await open(calls);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual([]);
    service.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual(['push started', 'cron sync 1']);
    // The push queues of the service (the cron queue is one), with their ids; no pull queue.
    const dispatched = plans[0]!.queues.map((queue) => [queue.config.name, queue.queueId]);
    expect(dispatched).toEqual(
      service.config.queues.filter((queue) => queue.mode === 'push').map((queue) => [queue.name, ids.get(queue.name)]),
    );
    expect(dispatched.map(([name]) => name)).toEqual(expect.arrayContaining(['hooks', 'cron']));
    expect(dispatched.map(([name]) => name)).not.toContain('q');
    // A second start() starts nothing more.
    service.start();
    service.startDispatch();
    store.calls.length = 0;
    await service.close();
    expect(calls.slice(2)).toEqual(['cron stopped', 'push stopped 250']);
    expect(store.calls).toEqual(['close']);
    // Closed: nothing starts again.
    service.startDispatch();
    expect(calls.filter((call) => call === 'push started')).toHaveLength(1);
  });

  it('push is started by start() only when asked (dispatch), and startDispatch() starts it later', async () => {
    const calls: string[] = [];
    const { service } = await open(calls);
    const laterStore = new InMemoryTaskStore();
    const laterConfig = serviceConfig([pullQueue('q')]);
    const later = new TaskQueueService(asTaskStore(laterStore), laterConfig, await laterStore.syncQueues(laterConfig), {
      cleanupIntervalMs: 0,
      push: {
        start: () => {
          calls.push('later started');
          return { stop: async () => void calls.push('later stopped'), update: () => {} };
        },
        dispatch: false,
        graceMs: 0,
      },
    });
    later.start();
    expect(calls).toEqual([]);
    later.startDispatch();
    expect(calls).toEqual(['later started']);
    await later.close();
    expect(calls).toEqual(['later started', 'later stopped']);
    await service.close();
  });

  it("push's name-hold rule reads the service's clock, not Date.now()", async () => {
    const made = Date.UTC(2026, 0, 1);
    let now = made;
    const { service, plans } = await open([], { now: () => now, tombstoneRetentionMs: 7 * DAY });
    service.start();
    const name = generateTaskName(made);
    const { heldByForm } = plans[0]!;
    now = made + 7 * DAY - 1;
    expect(heldByForm(name)).toBe(true);
    now = made + 7 * DAY;
    expect(heldByForm(name)).toBe(false);
    // Far from the real clock's today: the answer is the service clock's.
    now = made - DAY;
    expect(heldByForm(name)).toBe(true);
    expect(heldByForm('chosen-name')).toBe(false);
    await service.close();
  });

  it('cron run is audited through the store call of every operator action, as its operator (default: the application)', async () => {
    const { service, store } = await open([], { cron: undefined });
    await expect(service.runCronJob('tick')).rejects.toMatchObject({ code: 'UNKNOWN_TASK' });
    await service.close();

    const calls: string[] = [];
    const withCron = await open(calls);
    const fired = await withCron.service.runCronJob('tick', { actor: 'ops@example.com', source: 'console' });
    expect(fired).toMatchObject({ outcome: 'added', queue: 'cron' });
    const second = await withCron.service.runCronJob('tick');
    expect(withCron.store.calls.filter((call) => call === 'recordAudit')).toHaveLength(2);
    expect(withCron.store.audit).toEqual([
      { actor: 'ops@example.com', source: 'console', action: 'cron_run', queue: 'cron', target: fired.task, count: 1 },
      { actor: 'anonymous', source: 'api', action: 'cron_run', queue: 'cron', target: second.task, count: 1 },
    ]);
    expect(store.audit).toEqual([]);
    await withCron.service.close();
  });
});
