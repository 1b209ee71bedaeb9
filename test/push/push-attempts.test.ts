import { describe, expect, it } from 'vitest';
import { RESPONSE_EXCERPT_BYTES } from '../../src/core/task-attempt.js';
import { ENGINES } from '../helpers/engines.js';
import { usePushFixture } from './push-fixture.js';

describe.each(ENGINES)('push attempt history and retry now (%s)', (engine) => {
  const push = usePushFixture();
  const slow = { ageLimitSeconds: null, minBackoffSeconds: 3600, maxBackoffSeconds: 3600, maxDoublings: 0 };

  it('records a failed delivery with its status, the start of the body and its duration; retry now delivers it at once', async () => {
    let fixed = false;
    const { t, sink } = await push.start(engine, {
      answer: () =>
        fixed ? { status: 200 } : { status: 502, body: `upstream exploded: ${'x'.repeat(3 * RESPONSE_EXCERPT_BYTES)}` },
      queue: { retry: slow },
    });
    await t.service.getQueue('h').add({ name: 'flaky', payload: 'p' });
    await sink.waitFor(1);
    await expect.poll(async () => (await t.operate('h').attempts('flaky')).length).toBe(1);
    const [attempt] = await t.operate('h').attempts('flaky');
    expect(attempt).toMatchObject({ attempt: 1, outcome: 'failed', httpStatus: 502, error: 'HTTP 502' });
    expect(attempt!.responseExcerpt!.startsWith('upstream exploded: xxx')).toBe(true);
    expect(attempt!.responseExcerpt!.length).toBe(RESPONSE_EXCERPT_BYTES);
    expect(attempt!.durationMs).toBeGreaterThanOrEqual(0);

    // The backoff is an hour; the endpoint is fixed; the operator retries now.
    fixed = true;
    const result = await t.operate('h').runNow({ names: ['flaky'] });
    expect(result.count).toBe(1);
    await sink.waitFor(2);
    await expect.poll(() => t.sql(`select name from ${t.schema}.tasks`)).toEqual([]);
  });

  it('keeps the attempts of a dead letter', async () => {
    const { t, sink } = await push.start(engine, { answer: () => ({ status: 500, body: 'broken' }) });
    await t.service.getQueue('h').add({ name: 'doomed', retryOptions: { taskRetryLimit: 1 } });
    await sink.waitFor(2);
    await expect.poll(async () => (await t.operate('h').listDeadLetters({ limit: 10 })).length).toBe(1);
    const attempts = await t.operate('h').attempts('doomed');
    expect(attempts.map((a) => [a.attempt, a.httpStatus, a.responseExcerpt])).toEqual([
      [2, 500, 'broken'],
      [1, 500, 'broken'],
    ]);
  });
});
