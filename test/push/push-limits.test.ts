import { describe, expect, it } from 'vitest';
import { HttpDelivery } from '../../src/push/http-delivery.js';
import { serviceConfig } from '../helpers/configs.js';
import { ENGINES } from '../helpers/engines.js';
import { pushQueue, startSink } from '../helpers/push-sink.js';
import { usePushFixture } from './push-fixture.js';

/** The most deliveries in any window [t_i, t_i + d] exceeding bucket + rate·(d + jitter), over all i and d. */
function worstExcess(times: readonly number[], rate: number, bucket: number, jitterSeconds: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let worst = -Infinity;
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i; j < sorted.length; j++) {
      const d = (sorted[j]! - sorted[i]!) / 1000;
      worst = Math.max(worst, j - i + 1 - (bucket + rate * (d + jitterSeconds)));
    }
  }
  return worst;
}

describe.each(ENGINES)('push limits (%s)', (engine) => {
  const push = usePushFixture();

  it('two service instances together never exceed the token bucket over any window', async () => {
    // Every attempt fails with a long backoff, so each task keeps the time of
    // its one claim (first_try_at, the database's clock): the windows are
    // checked on the claims themselves, free of network jitter. Times count
    // from the first claim: epoch milliseconds in a float8 lose the last
    // microsecond's fraction, enough to misread an exact claim as early.
    const rate = 20;
    const bucket = 5;
    const retry = { ageLimitSeconds: null, minBackoffSeconds: 1000, maxBackoffSeconds: 1000, maxDoublings: 0 };
    const { t, sink, config } = await push.start(engine, {
      answer: () => ({ status: 500 }),
      push: { ratePerSecond: rate, bucketSize: bucket },
      queue: { retry },
    });
    await t.openAnother(config);
    const queue = t.service.getQueue('h');
    for (let i = 0; i < 5; i++) await queue.add(Array.from({ length: 10 }, () => ({ payload: 'x' })));
    await sink.waitFor(50, 20_000);
    const claims = await t.sql<{ ms: number }>(
      `select (extract(epoch from first_try_at - min(first_try_at) over ()) * 1000)::float8 as ms from ${t.schema}.tasks`,
    );
    expect(claims).toHaveLength(50);
    const times = claims.map((row) => Number(row.ms));
    expect(worstExcess(times, rate, bucket, 0)).toBeLessThanOrEqual(1e-6);
    // And the rate was used: 50 tasks took about (50 - 5) / 20 s.
    const span = (Math.max(...times) - Math.min(...times)) / 1000;
    expect(span).toBeGreaterThan((50 - bucket) / rate - 0.1);
    expect(span).toBeLessThan((50 - bucket) / rate + 1.5);
  });

  it('two service instances together never exceed max-concurrent-requests', async () => {
    const { t, sink, config } = await push.start(engine, {
      answer: () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 60)),
      push: { maxConcurrentRequests: 3 },
    });
    await t.openAnother(config);
    await t.service.getQueue('h').add(Array.from({ length: 24 }, () => ({ payload: 'x' })));
    await sink.waitFor(24, 20_000);
    expect(sink.maxConcurrent).toBe(3);
  });

  it('pause stops dispatch (adds accepted, in-flight requests finish); resume restarts it', async () => {
    const release: (() => void)[] = [];
    const { t, sink } = await push.start(engine, {
      answer: (_r, index) =>
        index === 0 ? new Promise((resolve) => release.push(() => resolve({ status: 200 }))) : { status: 200 },
    });
    const queue = t.service.getQueue('h');
    await queue.add({ name: 'in-flight' });
    await sink.waitFor(1);
    await t.operate('h').pause();
    await queue.add([{ name: 'later-1' }, { name: 'later-2' }]);
    release[0]!();
    await expect
      .poll(async () =>
        (await t.sql<{ name: string }>(`select name from ${t.schema}.tasks order by name`)).map((r) => r.name),
      )
      .toEqual(['later-1', 'later-2']);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sink.requests).toHaveLength(1);
    await t.operate('h').resume();
    await sink.waitFor(3);
    expect((await t.service.auditLog.list({ limit: 10, queue: 'h' })).map((e) => e.action)).toEqual([
      'resume',
      'pause',
    ]);
  });

  it('a task deleted or purged while in flight stays deleted whatever its outcome', async () => {
    const release: (() => void)[] = [];
    const { t, sink } = await push.start(engine, {
      answer: () => new Promise((resolve) => release.push(() => resolve({ status: 500 }))),
    });
    const queue = t.service.getQueue('h');
    await queue.add([{ name: 'deleted-in-flight' }, { name: 'purged-in-flight' }]);
    await sink.waitFor(2);
    expect(await queue.deleteTask('deleted-in-flight')).toBe(true);
    expect(await t.operate('h').purge()).toBe(1);
    for (const done of release) done();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await t.sql(`select name from ${t.schema}.tasks`)).toEqual([]);
    expect(sink.requests).toHaveLength(2);
    expect(
      (await t.sql<{ name: string }>(`select name from ${t.schema}.task_tombstones order by name`)).map((r) => r.name),
    ).toEqual(['deleted-in-flight', 'purged-in-flight']);
  });

  it('a closing service claims nothing new and lets the request in flight finish within the grace', async () => {
    let release: (() => void) | undefined;
    // This service does not dispatch (rate 0); the other one does.
    const { t, sink } = await push.start(engine, {
      answer: (_r, index) =>
        index === 0 ? new Promise((resolve) => (release = () => resolve({ status: 200 }))) : { status: 200 },
      push: { ratePerSecond: 0 },
    });
    const dispatcher = await t.openAnother(serviceConfig([pushQueue('h', sink.url)]), { ownQueues: true });
    await t.service.getQueue('h').add({ name: 'slow' });
    await sink.waitFor(1);
    const closing = dispatcher.close();
    await t.service.getQueue('h').add({ name: 'after-close' });
    setTimeout(() => release!(), 200);
    await closing;
    expect(sink.requests).toHaveLength(1);
    expect((await t.sql<{ name: string }>(`select name from ${t.schema}.tasks`)).map((r) => r.name)).toEqual([
      'after-close',
    ]);
  });
});

describe('the HTTP client of push delivery', () => {
  it('gives up at the deadline and reports it; reads no redirect', async () => {
    const sink = await startSink((request) =>
      request.url === '/hang'
        ? new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 2000))
        : { status: 301, headers: { location: '/hang' } },
    );
    const http = new HttpDelivery();
    try {
      const started = Date.now();
      const slow = await http.send({
        url: `${sink.url}/hang`,
        method: 'POST',
        headers: [],
        body: Buffer.from('x'),
        deadlineMs: 200,
      });
      expect(slow).toEqual({ status: null, retryAfterSeconds: null, error: 'deadline exceeded' });
      expect(Date.now() - started).toBeLessThan(1500);
      const moved = await http.send({
        url: `${sink.url}/moved`,
        method: 'GET',
        headers: [],
        body: null,
        deadlineMs: 5000,
      });
      expect(moved.status).toBe(301);
      expect(sink.requests.map((r) => r.url)).toEqual(['/hang', '/moved']);
      const refused = await http.send({
        url: 'http://127.0.0.1:1/',
        method: 'GET',
        headers: [],
        body: null,
        deadlineMs: 5000,
      });
      expect(refused.status).toBeNull();
      expect(refused.error).toMatch(/ECONNREFUSED/);
    } finally {
      await http.close();
      await sink.close();
    }
  });
});
