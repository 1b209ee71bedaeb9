import { afterEach, describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe.each(ENGINES)('adding tasks on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  const open = async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    return t.service.getQueue('q');
  };
  const code = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: unknown) => (isQueueError(e) ? e.code : String(e)),
    );

  it('generates random URL-safe names and keeps payload bytes exactly', async () => {
    const q = await open();
    const bytes = Buffer.from([0, 255, 1, 254, 10, 13]);
    const [a, b] = await q.add([{ payload: bytes }, { payload: 'héllo' }]);
    expect(a!.name).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(a!.name).not.toBe(b!.name);
    const leased = new Map((await q.leaseTasks({ lease: 10, maxTasks: 2 })).map((x) => [x.name, x]));
    expect(Buffer.compare(leased.get(a!.name)!.payload, bytes)).toBe(0);
    expect(leased.get(b!.name)!.payload.toString('utf8')).toBe('héllo');
    expect(leased.get(a!.name)!.retryCount).toBe(1);
  });

  it('checks names, sizes, tags, ETAs, methods and batch sizes', async () => {
    const q = await open();
    expect(await code(q.add({ name: 'bad name' }))).toBe('INVALID_TASK_NAME');
    expect(await code(q.add({ name: 'x'.repeat(501) }))).toBe('INVALID_TASK_NAME');
    expect(await code(q.add({ name: 'x'.repeat(500) }))).toBe('ok');
    expect(await code(q.add({ payload: Buffer.alloc(1024 * 1024 + 1) }))).toBe('TASK_TOO_LARGE');
    expect(await code(q.add({ payload: Buffer.alloc(1024 * 1024) }))).toBe('ok');
    expect(await code(q.add({ tag: 'é'.repeat(251) }))).toBe('INVALID_TAG');
    expect(await code(q.add({ tag: 't'.repeat(500) }))).toBe('ok');
    expect(await code(q.add({ countdownSeconds: 30 * 86400 + 1 }))).toBe('INVALID_ETA');
    expect(await code(q.add({ countdownSeconds: -1 }))).toBe('INVALID_ETA');
    expect(await code(q.add({ eta: new Date(Date.now() + 31 * 86400_000) }))).toBe('INVALID_ETA');
    expect(await code(q.add({ eta: new Date(Date.now() + 29 * 86400_000) }))).toBe('ok');
    expect(await code(q.add({ method: 'PUSH' }))).toBe('INVALID_QUEUE_MODE');
    expect(await code(q.add([{ name: 'd' }, { name: 'd' }]))).toBe('DUPLICATE_TASK_NAME');
    expect(await code(q.add(Array.from({ length: 101 }, () => ({}))))).toBe('TOO_MANY_TASKS');
    expect(await code(q.add(Array.from({ length: 100 }, () => ({}))))).toBe('ok');
    // Nothing of the rejected adds was stored.
    const [count] = await t.sql<{ n: string }>(`select count(*)::text as n from ${t.schema}.tasks`);
    expect(Number(count!.n)).toBe(104);
  });

  it('rejects a batch whose ETA is too far ahead as a whole', async () => {
    const q = await open();
    const far = new Date(Date.now() + 40 * 86400_000);
    expect(await code(q.add([{ name: 'ok1' }, { name: 'far', eta: far }]))).toBe('INVALID_ETA');
    expect(await q.listTasks()).toEqual([]);
  });

  it('combines concurrent adds of a queue, and one refused add fails alone', async () => {
    const q = await open();
    await q.add({ name: 'held' });
    await q.deleteTask('held');
    await q.add({ name: 'live' });
    const far = new Date(Date.now() + 40 * 86400_000);
    // More adds at once than statements run at once: later ones wait and share a statement.
    const adds: Array<{ name: string; eta?: Date }> = [];
    for (let i = 0; i < 40; i++) {
      adds.push({ name: `ok-${i}` });
      if (i % 10 === 5) adds.push({ name: 'held' }, { name: 'live' }, { name: `far-${i}`, eta: far });
    }
    adds.push({ name: 'twice' }, { name: 'twice' });
    const outcomes = await Promise.all(adds.map((task) => code(q.add(task))));
    const byName = (prefix: string) => outcomes.filter((_, i) => adds[i]!.name.startsWith(prefix));
    expect(byName('ok-')).toEqual(Array(40).fill('ok'));
    expect(new Set(byName('held'))).toEqual(new Set(['TOMBSTONED_TASK']));
    expect(new Set(byName('live'))).toEqual(new Set(['TASK_ALREADY_EXISTS']));
    expect(new Set(byName('far-'))).toEqual(new Set(['INVALID_ETA']));
    expect(byName('twice').sort()).toEqual(['TASK_ALREADY_EXISTS', 'ok']);
    const names = (await q.listTasks({ limit: 1000 })).map((task) => task.name).sort();
    expect(names).toEqual([...Array.from({ length: 40 }, (_, i) => `ok-${i}`), 'live', 'twice'].sort());
    // The counters match the rows: refused adds gave nothing to the storage accounting.
    expect((await q.fetchStatistics()).totalTasks).toBe(42);
  });

  it('rejects unknown queues', async () => {
    await open();
    expect(() => t.service.getQueue('nope')).toThrow(/not defined/);
  });

  it('hands back each task exactly as stored: payload, tag, ETA to the microsecond, enqueue time', async () => {
    const q = await open();
    const explicitUsec = Date.now() * 1000 + 3_600_000_123;
    const batch = await q.add([
      { name: 'plain', payload: Buffer.from([0, 1, 2, 255]) },
      { name: 'empty' },
      { name: 'fractional', countdownSeconds: 1.2345678, tag: 'x' },
      { name: 'explicit', etaUsec: explicitUsec, payload: 'é'.repeat(300) },
      { name: 'dated', eta: new Date(Date.now() + 60_000), tag: 'y' },
      { name: 'fifo', payload: Buffer.alloc(70_000, 7) },
    ]);
    const [single] = await q.add([{ name: 'single', payload: 'one', countdownSeconds: 5 }]);
    // Small concurrent adds share one statement (pg-task-store.ts).
    const combined = await Promise.all(
      Array.from({ length: 12 }, (_, i) => q.add({ name: `c-${i}`, payload: `p${i}` })),
    );
    const returned = [...batch, single!, ...combined];
    for (const task of returned) {
      const stored = await q.getTask(task.name);
      expect({ ...task, payload: task.payload.toString('hex') }).toEqual({
        ...stored,
        payload: stored.payload.toString('hex'),
      });
    }
    expect(batch.find((t) => t.name === 'explicit')!.etaUsec).toBe(explicitUsec);
    // Tasks of one batch without an ETA keep their order: one microsecond apart.
    const plain = batch.find((t) => t.name === 'plain')!;
    expect(batch.find((t) => t.name === 'fifo')!.etaUsec - plain.etaUsec).toBe(5);
  });

  it('stores each column right when a batch leaves the others empty (bound as one NULL)', async () => {
    const q = await open();
    const explicitUsec = Date.now() * 1000 + 7_200_000_321;
    const batches = [
      await q.add([{ payload: 'a' }, { payload: 'b' }]),
      await q.add([{ tag: 't1' }, {}]),
      await q.add([{ countdownSeconds: 2.5 }, {}]),
      await q.add([{ etaUsec: explicitUsec }, {}]),
      await q.add([{ name: 'given', tag: '' }, { name: null as unknown as string }]),
    ];
    for (const task of batches.flat()) {
      const stored = await q.getTask(task.name);
      expect({ ...task, payload: task.payload.toString('hex') }).toEqual({
        ...stored,
        payload: stored.payload.toString('hex'),
      });
    }
    expect(batches[1]!.map((t) => t.tag)).toEqual(['t1', null]);
    expect(batches[2]![0]!.etaUsec - batches[2]![1]!.etaUsec).toBe(2_500_000 - 1);
    expect(batches[3]!.map((t) => t.etaUsec === explicitUsec)).toEqual([true, false]);
    // A null name is generated, as an absent one.
    expect(batches[4]![1]!.name).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });
});

describe('tags the database could not store', () => {
  it('are refused before any round trip', async () => {
    const { validateTag } = await import('../../src/core/validate-tag.js');
    expect(() => validateTag('a\u0000b', {})).toThrow(/NUL/);
    expect(() => validateTag('a\uD800b', {})).toThrow(/Unicode/);
    expect(validateTag('emoji 😀', {})).toBe('emoji 😀');
    expect(validateTag('', {})).toBeNull();
  });
});
