import { afterEach, describe, expect, it } from 'vitest';
import { openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { cluster, nodeName, workerPortOf } from './cluster.js';

/**
 * A worker that stops: its queues' calls fail with a retryable error and
 * nothing is lost; queues on the other worker go on adding and leasing
 * (the lease is one router statement on its queue's worker); when it
 * returns, its tasks come back.
 */
describe('a Citus worker that stops', () => {
  let t: TestService;
  let stopped: string | null = null;
  afterEach(async () => {
    if (stopped !== null) await cluster('start');
    stopped = null;
    await t?.close();
  });

  it('fails its queues with a retryable error while the others go on adding and leasing', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `q${i}`);
    t = await openTestService('postgres', serviceConfig(names.map((n) => pullQueue(n))), {
      statementTimeoutMs: 20_000,
    });
    const ids = await t.sql<{ name: string; id: number }>(`select name, id from ${t.schema}.queues`);
    const port = new Map<string, number>();
    for (const { name, id } of ids) if (names.includes(name)) port.set(name, await workerPortOf(t.schema, id));
    const down = names[0]!;
    const up = names.find((n) => port.get(n) !== port.get(down));
    expect(up, 'the queues all landed on one worker').toBeDefined();
    await t.service.getQueue(down).add({ name: 'kept', payload: 'safe' });
    stopped = nodeName(port.get(down)!);
    await cluster('stop', stopped);

    const failure = await t.service
      .getQueue(down)
      .add({ name: 'lost' })
      .then(
        () => null,
        (error: unknown) => error as { code?: string },
      );
    expect(failure?.code).toBe('TRANSIENT_ERROR');
    const other = t.service.getQueue(up!);
    await other.add({ name: 'goes-on' });
    await other.add({ name: 'goes-on-again' });
    // The lease is one router statement (docs/scaling.md): the stopped
    // worker's queues fail, the other worker's lease on.
    await expect(t.service.getQueue(down).leaseTasks({ lease: 60, maxTasks: 5 })).rejects.toMatchObject({
      code: 'TRANSIENT_ERROR',
    });
    expect((await other.leaseTasks({ lease: 60, maxTasks: 5 })).map((x) => x.name)).toEqual([
      'goes-on',
      'goes-on-again',
    ]);

    await cluster('start');
    stopped = null;
    const back = await t.service.getQueue(down).leaseTasks({ lease: 60, maxTasks: 5 });
    expect(back.map((x) => [x.name, x.payload.toString()])).toEqual([['kept', 'safe']]);
  });
});
