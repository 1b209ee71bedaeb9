import { afterEach, describe, expect, it } from 'vitest';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';

describe.each(ENGINES)('audit log partial filters on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  it('filters by queue prefix, any part of the actor (any case, LIKE characters literal) and a time range', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    const log = t.service.auditLog;
    const record = (actor: string, queue: string) =>
      t.sql(`insert into ${t.schema}.audit_log (actor, action, queue, count) values ($1, 'pause', $2, 0)`, [
        actor,
        queue,
      ]);
    await record('Alice@example.com', 'billing-eu');
    await record('bob@example.com', 'billing-us');
    await record('cli:ops', 'mail');
    await record('100%_sure@example.com', 'mail');
    await t.sql(`update ${t.schema}.audit_log set at = at - interval '2 days' where actor = 'cli:ops'`);
    const who = async (options: object) =>
      (await log.list({ limit: 10, ...options })).map((entry) => entry.actor).sort();
    expect(await who({ queuePrefix: 'billing-' })).toEqual(['Alice@example.com', 'bob@example.com']);
    expect(await who({ actorContains: 'alice' })).toEqual(['Alice@example.com']);
    expect(await who({ actorContains: '%_' })).toEqual(['100%_sure@example.com']);
    expect(await who({ actorContains: 'cli:' })).toEqual(['cli:ops']);
    const nowUsec = Number(
      (await t.sql<{ n: string }>(`select (extract(epoch from now()) * 1000000)::int8::text as n`))[0]!.n,
    );
    const dayAgo = nowUsec - 86_400_000_000;
    expect(await who({ untilUsec: dayAgo })).toEqual(['cli:ops']);
    expect(await who({ sinceUsec: dayAgo, queuePrefix: 'mail' })).toEqual(['100%_sure@example.com']);
  });
});
