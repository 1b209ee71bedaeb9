import { describe, expect, it } from 'vitest';
import { ENGINES, type TestService } from '../helpers/engines.js';
import { usePushFixture } from './push-fixture.js';

describe.each(ENGINES)('push outcomes (%s)', (engine) => {
  const push = usePushFixture();

  const rows = (sql: TestService['sql'], schema: string) =>
    sql<{
      name: string;
      retry_count: number;
      execution_count: number;
      last_status: number | null;
      last_error: string | null;
      wait_s: number;
      idle: boolean;
    }>(
      `select name, retry_count, execution_count, last_status, last_error, dispatched_at is null as idle,
              extract(epoch from eta - now())::float8 as wait_s from ${schema}.tasks order by name`,
    );

  it('retries a failure with retry count, execution count, previous response and reason; a 503 is not an execution', async () => {
    const answers = [500, 503, 200];
    const { t, sink } = await push.start(engine, { answer: (_request, index) => ({ status: answers[index] ?? 200 }) });
    await t.service.getQueue('h').add({ name: 'flaky', payload: 'p' });
    await sink.waitFor(3);
    const headers = sink.requests.map((r) => [
      r.headers['x-appengine-taskretrycount'],
      r.headers['x-appengine-taskexecutioncount'],
      r.headers['x-appengine-taskpreviousresponse'],
      r.headers['x-appengine-taskretryreason'],
    ]);
    expect(headers).toEqual([
      ['0', '0', undefined, undefined],
      ['1', '1', '500', 'HTTP 500'],
      ['2', '1', '503', 'HTTP 503'],
    ]);
    expect(sink.requests.every((r) => r.body.toString() === 'p')).toBe(true);
    await expect.poll(() => rows(t.sql, t.schema)).toEqual([]);
  });

  it('waits the backoff of the retry parameters, from the failure (rows backdated, no sleeping)', async () => {
    const retry = { ageLimitSeconds: null, minBackoffSeconds: 10, maxBackoffSeconds: 300, maxDoublings: 3 };
    const { t, sink } = await push.start(engine, { answer: () => ({ status: 500 }), queue: { retry } });
    await t.service.getQueue('h').add({ name: 'slow' });
    const expected = [10, 20, 40, 80, 160, 240, 300];
    for (const [i, seconds] of expected.entries()) {
      await sink.waitFor(i + 1);
      await expect
        .poll(async () => (await rows(t.sql, t.schema))[0])
        .toMatchObject({ retry_count: i + 1, last_status: 500, idle: true });
      const [row] = await rows(t.sql, t.schema);
      expect(row!.wait_s).toBeGreaterThan(seconds - 2);
      expect(row!.wait_s).toBeLessThanOrEqual(seconds);
      if (i === expected.length - 1) break;
      await t.sql(`update ${t.schema}.tasks set eta = now()`);
    }
    expect(sink.requests).toHaveLength(expected.length);
  });

  it('moves a task out of retries to the dead letters with its last status, and redrive delivers it again', async () => {
    let fail = true;
    const { t, sink } = await push.start(engine, { answer: () => ({ status: fail ? 418 : 200 }) });
    const queue = t.service.getQueue('h');
    await queue.add({
      name: 'doomed',
      url: '/d',
      headers: { 'X-Keep': '1' },
      payload: 'body',
      retryOptions: { taskRetryLimit: 2 },
    });
    await sink.waitFor(3);
    await expect
      .poll(async () => (await t.operate('h').listDeadLetters({ limit: 10 })).map((d) => d.name))
      .toEqual(['doomed']);
    const [dead] = await t.sql<{ last_status: number; retry_count: number; push: { url: string } }>(
      `select last_status, retry_count, push from ${t.schema}.task_dead_letters`,
    );
    expect(dead).toMatchObject({ last_status: 418, retry_count: 3, push: { url: '/d' } });
    expect(await t.sql(`select reason from ${t.schema}.task_tombstones where name = 'doomed'`)).toEqual([
      { reason: 'retry_limit' },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.requests).toHaveLength(3);
    fail = false;
    expect(await t.operate('h').redrive()).toBe(1);
    await sink.waitFor(4);
    const again = sink.requests[3]!;
    expect([
      again.url,
      again.headers['x-keep'],
      again.body.toString(),
      again.headers['x-appengine-taskretrycount'],
    ]).toEqual(['/d', '1', 'body', '0']);
    await expect.poll(() => rows(t.sql, t.schema)).toEqual([]);
    // The operator's redrive is recorded; the dispatcher's own outcomes (retries, the dead letter) are not operator actions.
    expect((await t.service.auditLog.list({ limit: 10, queue: 'h' })).map((e) => [e.action, e.count, e.actor])).toEqual(
      [['redrive', 1, 'test@example.com']],
    );
  });

  it('stops at the age limit, measured from the first attempt, when no retry limit is set', async () => {
    const retry = { ageLimitSeconds: 60, minBackoffSeconds: 100, maxBackoffSeconds: 100, maxDoublings: 0 };
    const { t, sink } = await push.start(engine, { answer: () => ({ status: 500 }), queue: { retry } });
    await t.service.getQueue('h').add({ name: 'aging' });
    await sink.waitFor(1);
    await expect.poll(async () => (await rows(t.sql, t.schema))[0]?.last_status).toBe(500);
    // Young enough: retried. Then older than 60 s since the first attempt: dead.
    await t.sql(`update ${t.schema}.tasks set eta = now(), first_try_at = now() - interval '30 seconds'`);
    await sink.waitFor(2);
    await expect.poll(async () => (await rows(t.sql, t.schema))[0]?.retry_count).toBe(2);
    await t.sql(`update ${t.schema}.tasks set eta = now(), first_try_at = now() - interval '61 seconds'`);
    await sink.waitFor(3);
    await expect.poll(async () => (await t.operate('h').listDeadLetters({ limit: 5 })).length).toBe(1);
  });

  it('does not follow a redirect: a 302 is a failed attempt', async () => {
    const { t, sink } = await push.start(engine, {
      answer: (request) =>
        request.url === '/start' ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 },
      queue: { retry: { ageLimitSeconds: null, minBackoffSeconds: 100, maxBackoffSeconds: 100, maxDoublings: 0 } },
    });
    await t.service.getQueue('h').add({ name: 'moved', url: '/start' });
    await sink.waitFor(1);
    await expect.poll(async () => (await rows(t.sql, t.schema))[0]?.last_status).toBe(302);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sink.requests.map((r) => r.url)).toEqual(['/start']);
  });

  it('a 503 empties the bucket, slows the queue and holds it for Retry-After', async () => {
    const { t, sink } = await push.start(engine, {
      answer: (_r, index) => (index === 0 ? { status: 503, headers: { 'retry-after': '120' } } : { status: 200 }),
    });
    await t.service.getQueue('h').add({ name: 'busy' });
    await sink.waitFor(1);
    await expect.poll(async () => (await rows(t.sql, t.schema))[0]).toMatchObject({ last_status: 503, idle: true });
    const [row] = await rows(t.sql, t.schema);
    expect(row!.wait_s).toBeGreaterThan(118);
    expect(row!.execution_count).toBe(0);
    const [state] = await t.sql<{ tokens: number; hold_s: number; slow_s: number }>(
      `select tokens, extract(epoch from hold_until - now())::float8 as hold_s, extract(epoch from slow_until - now())::float8 as slow_s
         from ${t.schema}.push_queue_state`,
    );
    expect(state!.tokens).toBe(0);
    expect(state!.hold_s).toBeGreaterThan(118);
    expect(state!.slow_s).toBeGreaterThan(25);
    // Held: another task due now waits too.
    await t.service.getQueue('h').add({ name: 'next' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.requests).toHaveLength(1);
  });
});
