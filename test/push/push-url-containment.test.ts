import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { publicJwks } from '../../src/auth/push-token-signer.js';
import { pushQueue } from '../helpers/push-sink.js';
import { usePushFixture } from './push-fixture.js';

/**
 * A task's URL is joined to its queue's <target-url> normalized as the
 * HTTP client would send it, and must stay under the base's path (issue
 * 30, item 4): `/hooks/base` + `/../../x` arrived at `/x`. A task stored
 * before adds refused such URLs goes to the dead letters, never to
 * another path; the token's audience is the URL actually requested.
 */
describe('push URL containment', () => {
  const push = usePushFixture();

  it('never delivers a stored task whose path climbs out of the base path; it goes to the dead letters', async () => {
    const { t, sink } = await push.start('postgres', { queues: (url) => [pushQueue('h', `${url}/hooks/base`)] });
    const queue = t.service.getQueue('h');
    await t.operate('h').pause();
    await queue.add([
      { name: 'escapes', url: '/placeholder' },
      { name: 'encoded', url: '/placeholder' },
      { name: 'stays', url: '/a/./b/../c' },
    ]);
    // As a task added before the add refused them (or written by hand) would be stored.
    await t.sql(
      `update ${t.schema}.tasks set push = jsonb_set(push, '{url}', to_jsonb($1::text)) where name = 'escapes'`,
      ['/../../x'],
    );
    await t.sql(
      `update ${t.schema}.tasks set push = jsonb_set(push, '{url}', to_jsonb($1::text)) where name = 'encoded'`,
      ['/sub/%2e%2e/%2E%2E/base2'],
    );
    await t.operate('h').resume();
    await sink.waitFor(1);
    await expect
      .poll(
        async () =>
          (await t.sql<{ name: string }>(`select name from ${t.schema}.task_dead_letters order by name`)).map(
            (r) => r.name,
          ),
        { timeout: 20_000 },
      )
      .toEqual(['encoded', 'escapes']);
    const [dead] = await t.sql<{ last_error: string; last_status: number | null }>(
      `select last_error, last_status from ${t.schema}.task_dead_letters where name = 'escapes'`,
    );
    expect(dead!.last_status).toBeNull();
    expect(dead!.last_error).toContain('climbs out of');
    expect(sink.requests.map((r) => r.url)).toEqual(['/hooks/base/a/c']);
  });

  it('signs the token for the normalized URL, the one requested', async () => {
    const { t, sink, queue } = await push.start('postgres', { queues: (url) => [pushQueue('h', `${url}/hooks/`)] });
    await queue.add({ url: '/a/./b/%2e%2e/run?x=/../y', payload: 'p' });
    await sink.waitFor(1);
    expect(sink.requests[0]!.url).toBe('/hooks/a/run?x=/../y');
    const token = sink.requests[0]!.headers.authorization!.slice('Bearer '.length);
    const jwks = createLocalJWKSet((await publicJwks(t.service.authStore)) as never);
    const { payload } = await jwtVerify(token, jwks, { issuer: 'urn:taskqueue:local' });
    expect(payload.aud).toBe(`${sink.url}/hooks/a/run`);
  });
});
