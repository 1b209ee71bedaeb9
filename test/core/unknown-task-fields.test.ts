import { describe, expect, it } from 'vitest';
import { TaskQueueService } from '../../src/core/task-queue-service.js';
import type { TaskOptions } from '../../src/core/task.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { asTaskStore, InMemoryTaskStore } from './in-memory-task-store.js';
import { registerService } from '../helpers/operator-of.js';

/** An in-process add refuses a field it does not know, as REST and the queue files do. */
async function open() {
  const store = new InMemoryTaskStore();
  const push = { ...pullQueue('push-q'), mode: 'push' as const, push: { targetUrl: 'http://hooks.test' } };
  const config = serviceConfig([pullQueue('q'), push as never]);
  const service = registerService(
    new TaskQueueService(asTaskStore(store), config, await store.syncQueues(config), { cleanupIntervalMs: 0 }),
  );
  store.calls.length = 0;
  return { store, service };
}

/** A task with a field TaskOptions does not have, as JavaScript (or a cast) would pass it. */
function loose(task: Record<string, unknown>): TaskOptions {
  return task as TaskOptions;
}

describe('in-process add: unknown fields', () => {
  it('refuses countdown (App Engine Python spelling) and names the field and the right one', async () => {
    const { store, service } = await open();
    const q = service.getQueue('q');
    const refused = q.add(loose({ payload: 'x', countdown: 60 }));
    await expect(refused).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { queue: 'q', field: 'countdown', index: 0 },
    });
    await expect(refused).rejects.toThrow(/unknown field "countdown".*countdownSeconds/);
    expect(store.calls).toEqual([]);
  });

  it('refuses a misspelt field in any task of a batch, adding none', async () => {
    const { store, service } = await open();
    const q = service.getQueue('q');
    const refused = q.add([{ payload: 'a' }, loose({ payload: 'b', tagg: 'x' })]);
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'tagg', index: 1 } });
    await expect(refused).rejects.toThrow(/unknown field "tagg"/);
    expect(store.calls).toEqual([]);
  });

  it('refuses an unknown field of retryOptions on a push task', async () => {
    const { service } = await open();
    const q = service.getQueue('push-q');
    const refused = q.add(loose({ retryOptions: { taskRetryLimit: 1, retryLimit: 3 } }));
    await expect(refused).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'retryOptions.retryLimit' },
    });
    await expect(refused).rejects.toThrow(/unknown field "retryOptions.retryLimit"/);
  });

  it('still takes every documented field, and fields given as undefined', async () => {
    const { service } = await open();
    const q = service.getQueue('q');
    const task = await q.add({
      name: 'ok',
      payload: 'p',
      tag: 't',
      method: 'PULL',
      countdownSeconds: 0,
      eta: undefined,
      etaUsec: undefined,
    });
    expect(task.name).toBe('ok');
  });
});

describe('in-process add: unknown add options', () => {
  it("refuses a misspelt option (a task added outside the caller's transaction would be silent)", async () => {
    const { store, service } = await open();
    const q = service.getQueue('q');
    const refused = q.add({ payload: 'x' }, { transacton: {} } as never);
    await expect(refused).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { queue: 'q', field: 'transacton' },
    });
    await expect(refused).rejects.toThrow(/unknown add option "transacton"; the options are transaction, restore/);
    expect(store.calls).toEqual([]);
    expect((await q.add({ payload: 'y' }, { restore: false })).queueName).toBe('q');
  });
});
