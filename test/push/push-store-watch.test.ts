import { describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import type { Logger } from '../../src/core/logger.js';
import { PgPushStore } from '../../src/store/push/pg-push-store.js';
import { ENGINES } from '../helpers/engines.js';
import { usePushFixture } from './push-fixture.js';

describe.each(ENGINES)("the push store's failures (%s)", (engine) => {
  const push = usePushFixture();

  it('go through the task store\'s watch: one "database lost" for the outage, whichever store finds it', async () => {
    const lines: { level: string; message: string }[] = [];
    const record = (level: string) => (_fields: object, message?: string) =>
      void lines.push({ level, message: message ?? '' });
    const logger: Logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
      child: () => logger,
    };
    const { t, queue } = await push.start(engine, { open: { open: { dispatch: false, logger } } });
    const store = new PgPushStore(t.store);
    const dispatcherId = await store.registerDispatcher({ leaseMs: 60_000 });
    const claim = () =>
      store.claim({
        queueId: queue.id,
        queueName: 'h',
        ratePerSecond: 1,
        bucketSize: 1,
        maxConcurrentRequests: null,
        limit: 1,
        deadlineMs: 60_000,
        marginMs: 1_000,
        dispatcherId,
      });
    await claim();
    expect(lines.filter((line) => line.message === 'database lost')).toEqual([]);

    await t.sql(`drop schema ${t.schema} cascade`);
    for (let i = 0; i < 2; i++) {
      const error: unknown = await claim().then(
        () => null,
        (e: unknown) => e,
      );
      expect(isQueueError(error, 'TRANSIENT_ERROR'), String(error)).toBe(true);
      expect((error as { details: { queue?: string } }).details.queue).toBe('h');
    }
    const lost = [{ level: 'error', message: 'database lost' }];
    expect(lines.filter((line) => line.message === 'database lost')).toEqual(lost);
    // The task store's next failure is the same outage: no second line.
    await expect(t.store.schemaVersion()).rejects.toMatchObject({ code: 'TRANSIENT_ERROR' });
    expect(lines.filter((line) => line.message === 'database lost')).toEqual(lost);
  });
});
