import { describe, expect, it } from 'vitest';
import { TaskQueueService } from '../../src/core/task-queue-service.js';
import type { TaskInsertParams } from '../../src/core/task-store.js';
import { CapturedEvents } from '../helpers/capture-events.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { asTaskStore, InMemoryTaskStore } from './in-memory-task-store.js';
import { operatorOf, registerService } from '../helpers/operator-of.js';

/** The core's own rules, on an in-memory store: no database involved. */
async function open() {
  const store = new InMemoryTaskStore();
  const config = serviceConfig([pullQueue('q'), { ...pullQueue('push-q'), mode: 'push' }]);
  const events = new CapturedEvents();
  const service = registerService(
    new TaskQueueService(asTaskStore(store), config, await store.syncQueues(config), { events, cleanupIntervalMs: 0 }),
  );
  store.calls.length = 0;
  return { store, service, events, q: service.getQueue('q') };
}

describe('TaskQueue rules (in-memory store)', () => {
  it('refuses a bad batch whole, before the store sees any of it', async () => {
    const { store, q } = await open();
    await expect(q.add([{ name: 'ok-1' }, { name: 'bad name' }])).rejects.toMatchObject({
      code: 'INVALID_TASK_NAME',
      details: { queue: 'q', field: 'name', index: 1 },
    });
    await expect(q.add(Array.from({ length: 101 }, () => ({})))).rejects.toMatchObject({ code: 'TOO_MANY_TASKS' });
    await expect(q.add({ payload: Buffer.alloc(1024 * 1024 + 1) })).rejects.toMatchObject({ code: 'TASK_TOO_LARGE' });
    await expect(q.add({ countdownSeconds: 1, eta: new Date() })).rejects.toMatchObject({ code: 'INVALID_ETA' });
    await expect(q.add({ method: 'PUSH' })).rejects.toMatchObject({ code: 'INVALID_QUEUE_MODE' });
    expect(store.calls).toEqual([]);
    expect(await q.add([])).toEqual([]);
    expect(store.calls).toEqual([]);
  });

  it('adds one task or a batch, and reports what was added', async () => {
    const { q, events } = await open();
    const one = await q.add({ name: 'single', payload: 'héllo', tag: 't' });
    expect(one).toMatchObject({ name: 'single', queueName: 'q', tag: 't', retryCount: 0 });
    expect(one.payload.toString('utf8')).toBe('héllo');
    const batch = await q.add([{ payload: 'a' }, { payload: 'b' }]);
    expect(batch.map((task) => task.payload.toString())).toEqual(['a', 'b']);
    expect(batch[0]!.name).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(events.totals()).toEqual({ 'added:q': 3 });
  });

  it('tells the store which names the caller chose, and an import to skip the form check', async () => {
    const { store, q } = await open();
    let seen: TaskInsertParams | undefined;
    const insert = store.insertTasks.bind(store);
    store.insertTasks = async (params: TaskInsertParams) => {
      seen = params;
      return insert(params);
    };
    await q.add([{}, { name: 'chosen' }]);
    expect(seen!.tasks.map((task) => task.named)).toEqual([false, true]);
    expect(seen!.checkForm).toBeUndefined();
    await q.add({ name: 'restored' }, { restore: true });
    expect(seen!.checkForm).toBe(false);
  });

  it('checks lease and modify arguments in the core, so a push queue or a bad lease never reaches the store', async () => {
    const { store, service, q } = await open();
    const push = service.getQueue('push-q');
    await expect(push.leaseTasks({ lease: 10, maxTasks: 1 })).rejects.toMatchObject({ code: 'INVALID_QUEUE_MODE' });
    await expect(push.modifyTaskLease({ name: 'x', etaUsec: 1 }, 10)).rejects.toMatchObject({
      code: 'INVALID_QUEUE_MODE',
    });
    await expect(q.leaseTasks({ lease: 10, maxTasks: 0 })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'maxTasks' },
    });
    await expect(q.leaseTasks({ lease: 604_801, maxTasks: 1 })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'lease' },
    });
    await expect(q.leaseTasks({ lease: 10, maxTasks: 1, payloadLimitBytes: -1 })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(q.modifyTaskLease({ name: 'x', etaUsec: 1.5 }, 10)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'etaUsec' },
    });
    expect(store.calls).toEqual([]);
  });

  it('tells a deleted name from an unknown one, and answers deletes per name', async () => {
    const { q, events } = await open();
    await q.add([{ name: 'a' }, { name: 'b' }]);
    expect(await q.deleteTask(['a', 'a', 'nobody'])).toEqual([true, true, false]);
    expect(await q.deleteTask('a')).toBe(false);
    await expect(q.getTask('a')).rejects.toMatchObject({ code: 'TOMBSTONED_TASK', details: { task: 'a' } });
    await expect(q.getTask('nobody')).rejects.toMatchObject({ code: 'UNKNOWN_TASK' });
    // A name that could never be stored is refused before the store sees it.
    await expect(operatorOf(q).releaseLease('no such/name')).rejects.toMatchObject({ code: 'INVALID_TASK_NAME' });
    expect((await q.getTask('b')).name).toBe('b');
    expect(events.totals()).toEqual({ 'added:q': 2, 'deleted:q': 1 });
    await expect(q.deleteTask(Array.from({ length: 1001 }, (_, i) => `n${i}`))).rejects.toMatchObject({
      code: 'TOO_MANY_TASKS',
    });
  });

  it('validates browse and redrive arguments before the store', async () => {
    const { store, q } = await open();
    await expect(operatorOf(q).browseTasks({ limit: 0 })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'limit' },
    });
    await expect(operatorOf(q).browseTasks({ state: 'gone' as never })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'state' },
    });
    await expect(operatorOf(q).browseTasks({ after: { name: 'x', etaUsec: Number.NaN } })).rejects.toMatchObject({
      details: { field: 'after' },
    });
    await expect(operatorOf(q).redrive(['ok', 'not ok'])).rejects.toMatchObject({ code: 'INVALID_TASK_NAME' });
    expect(await operatorOf(q).redrive([])).toBe(0);
    expect(store.calls).toEqual([]);
  });

  it('knows only configured queues, and pause state comes from the store', async () => {
    const { service, q } = await open();
    expect(() => service.getQueue('elsewhere')).toThrow(expect.objectContaining({ code: 'UNKNOWN_QUEUE' }));
    expect(await q.isPaused()).toBe(false);
    await operatorOf(q).pause();
    expect(await q.isPaused()).toBe(true);
    expect(await service.getQueue('push-q').isPaused()).toBe(false);
    await operatorOf(q).resume();
    expect(await q.isPaused()).toBe(false);
  });

  it('purge reports the deleted tasks as deleted', async () => {
    const { q, events } = await open();
    await q.add([{}, {}, {}]);
    expect(await operatorOf(q).purge()).toBe(3);
    expect(await q.listTasks()).toEqual([]);
    expect(events.totals()).toEqual({ 'added:q': 3, 'deleted:q': 3 });
  });
});
