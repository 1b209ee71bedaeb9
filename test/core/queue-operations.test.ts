import { describe, expect, it } from 'vitest';
import { TaskQueueService } from '../../src/core/task-queue-service.js';
import { CapturedEvents } from '../helpers/capture-events.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { asTaskStore, InMemoryTaskStore } from './in-memory-task-store.js';

/** The operator API on an in-memory store: the audit policy, with no database. */
async function open() {
  const store = new InMemoryTaskStore();
  const config = serviceConfig([pullQueue('q')]);
  const events = new CapturedEvents();
  const service = new TaskQueueService(asTaskStore(store), config, await store.syncQueues(config), {
    events,
    cleanupIntervalMs: 0,
  });
  store.calls.length = 0;
  const operator = { actor: 'ops@example.com', source: 'test' };
  return { store, service, events, q: service.getQueue('q'), ops: service.operate('q', operator) };
}

describe('QueueOperations (in-memory store)', () => {
  it('every action that changes the queue writes one audit entry naming the operator, the task and the count', async () => {
    const { store, q, ops } = await open();
    await q.add([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    await ops.pause();
    await ops.resume();
    expect(await ops.deleteTasks(['a', 'nobody'])).toEqual([true, false]);
    expect((await ops.releaseLease('b')).released).toBe(false);
    expect(await ops.purge()).toBe(2);
    expect(
      await ops.importTasks([{ name: 'x', etaUsec: 1_700_000_000_000_000, tag: null, payloadBase64: 'aGk=' }]),
    ).toBe(1);
    const pages = [];
    for await (const page of ops.exportTasks()) pages.push(page);
    expect(pages.flat().map((line) => line.name)).toEqual(['x']);
    const who = { actor: 'ops@example.com', source: 'test', queue: 'q' };
    expect(store.audit).toEqual([
      { ...who, action: 'pause', target: null, count: 0 },
      { ...who, action: 'resume', target: null, count: 0 },
      { ...who, action: 'delete_task', target: null, count: 1 },
      { ...who, action: 'release_lease', target: 'b', count: 0 },
      { ...who, action: 'purge', target: null, count: 2 },
      { ...who, action: 'import_tasks', target: null, count: 1, names: ['x'] },
      { ...who, action: 'export_tasks', target: null, count: 1 },
    ]);
  });

  it('releases a selection with one entry, counting only tasks that were leased (the fake leases none)', async () => {
    const { store, q, ops } = await open();
    await q.add([{ name: 'a' }, { name: 'b' }]);
    expect(await ops.releaseLeases(['a', 'nobody', 'b', 'a'])).toEqual([false, false, false, false]);
    expect(store.calls.filter((call) => call === 'releaseLease')).toHaveLength(3);
    expect(await ops.releaseLeases(['b'])).toEqual([false]);
    const who = { actor: 'ops@example.com', source: 'test', queue: 'q' };
    expect(store.audit).toEqual([
      { ...who, action: 'release_lease', target: null, count: 0, names: [] },
      { ...who, action: 'release_lease', target: 'b', count: 0, names: [] },
    ]);
    await expect(ops.releaseLeases(['ok', '<b>'])).rejects.toMatchObject({ code: 'INVALID_TASK_NAME' });
    await expect(ops.releaseLeases(Array.from({ length: 1001 }, (_, i) => `t${i}`))).rejects.toMatchObject({
      code: 'TOO_MANY_TASKS',
    });
    expect(await ops.releaseLeases([])).toEqual([]);
    expect(store.audit).toHaveLength(2);
  });

  it('an export left early is recorded with what went out', async () => {
    const { store, q, ops } = await open();
    await q.add(Array.from({ length: 5 }, (_, i) => ({ name: `t${i}` })));
    for await (const page of ops.exportTasks(2)) {
      expect(page).toHaveLength(2);
      break;
    }
    expect(store.audit.map((entry) => [entry.action, entry.count])).toEqual([['export_tasks', 2]]);
  });

  it('refuses what can never be a task name before the store or the log sees it', async () => {
    const { store, ops } = await open();
    for (const bad of ['<script>alert(1)</script>', 'x'.repeat(600), '']) {
      await expect(ops.deleteTasks([bad])).rejects.toMatchObject({ code: 'INVALID_TASK_NAME' });
      await expect(ops.redrive([bad])).rejects.toMatchObject({ code: 'INVALID_TASK_NAME' });
      await expect(ops.releaseLease(bad)).rejects.toMatchObject({ code: 'INVALID_TASK_NAME' });
      await expect(ops.deleteDeadLetters([bad])).rejects.toMatchObject({ code: 'INVALID_TASK_NAME' });
    }
    expect(await ops.redrive([])).toBe(0);
    expect(await ops.deleteDeadLetters([])).toBe(0);
    expect(store.calls).toEqual([]);
    expect(store.audit).toEqual([]);
  });

  it('needs an operator to name, and reads record nothing', async () => {
    const { store, service, ops } = await open();
    expect(() => service.operate('q', { actor: '', source: 'test' })).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST' }),
    );
    expect(() => service.operate('elsewhere', { actor: 'a', source: 'test' })).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_QUEUE' }),
    );
    await ops.browseTasks();
    await ops.isPaused();
    await ops.statistics();
    expect(store.audit).toEqual([]);
  });
});
