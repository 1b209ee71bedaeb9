import { describe, expect, it } from 'vitest';
import { PUSH_LIMITS } from '../../src/core/push/push-rules.js';
import { pullQueue } from '../helpers/configs.js';
import { ENGINES, type TestService } from '../helpers/engines.js';
import { pushQueue } from '../helpers/push-sink.js';
import { usePushFixture } from '../push/push-fixture.js';
import { errorCodeOf, PATH_KINDS } from './api-paths.js';
import { pushPath } from './push-paths.js';

/**
 * What a push task's request may not carry, refused at add the same way
 * through the in-process API and add_push_task (issue 30, items 1, 2, 4,
 * 5): more headers than the limits (refused before any header is read, so
 * 100,000 of them cost no more than 101), header values and names the
 * HTTP client cannot send (they would fail every attempt forever), a URL
 * whose path climbs above its root (it would escape the queue's
 * <target-url> path), and callers' X-CloudScheduler* headers, which mark
 * cron deliveries, dropped as X-AppEngine-* are.
 */
describe.each(ENGINES.flatMap((engine) => PATH_KINDS.map((kind) => [engine, kind] as const)))(
  'push request refusals, %s, %s path',
  (engine, kind) => {
    const fixture = usePushFixture();
    // Rate 0: nothing is dispatched, so the stored rows can be read as added.
    const start = () =>
      fixture.start(engine, { queues: (url) => [pushQueue('h', url, { ratePerSecond: 0 }), pullQueue('p')] });
    const storedHeaders = async (t: TestService, name: string) =>
      (await t.sql<{ h: unknown }>(`select push -> 'headers' as h from ${t.schema}.tasks where name = $1`, [name]))[0]
        ?.h;
    const messageOf = async (call: Promise<unknown>) => {
      try {
        await call;
      } catch (error) {
        return String((error as Error).message);
      }
      throw new Error('expected the call to fail');
    };

    it('bounds the count and bytes of headers, and refuses a huge list without reading it', async () => {
      const { t } = await start();
      const api = pushPath(kind, t);
      const pairs = (n: number, value = 'v') => Array.from({ length: n }, (_, i) => [`X-H${i}`, value] as const);
      await api.addPush('h', { name: 'at-count', headers: pairs(PUSH_LIMITS.maxHeaders) });
      expect((await storedHeaders(t, 'at-count')) as unknown[]).toHaveLength(PUSH_LIMITS.maxHeaders);
      expect(await errorCodeOf(api.addPush('h', { headers: pairs(PUSH_LIMITS.maxHeaders + 1) }))).toBe(
        'INVALID_REQUEST',
      );
      // 100,000 pairs (the outside run's 9-minute call): refused by their count, with the limit named.
      const huge = api.addPush('h', { headers: pairs(100_000) });
      expect(await messageOf(huge)).toContain(`100000 headers; a push task may have at most ${PUSH_LIMITS.maxHeaders}`);
      // Dropped headers count too: the bound is on the work of reading them.
      expect(
        await errorCodeOf(
          api.addPush('h', {
            headers: pairs(PUSH_LIMITS.maxHeaders + 1).map(([k, v]) => [`X-AppEngine-${k}`, v] as const),
          }),
        ),
      ).toBe('INVALID_REQUEST');
      // Bytes of names and values: 'X-Big0' + value, twice, just over and at the limit (under the task's 100 KiB).
      const half = PUSH_LIMITS.maxHeaderBytes / 2 - 'X-Big0'.length;
      const big = (extra: number) => [
        ['X-Big0', 'a'.repeat(half + extra)] as const,
        ['X-Big1', 'a'.repeat(half)] as const,
      ];
      expect(await messageOf(api.addPush('h', { headers: big(1) }))).toContain(
        `a push task's headers may have at most ${PUSH_LIMITS.maxHeaderBytes}`,
      );
      await api.addPush('h', { name: 'at-bytes', headers: big(0) });
    });

    it("refuses header values and names the HTTP client cannot send, and drops callers' X-CloudScheduler headers", async () => {
      const { t } = await start();
      const api = pushPath(kind, t);
      const add = (headers: readonly (readonly [string, string])[]) => errorCodeOf(api.addPush('h', { headers }));
      for (const value of ['euro €', 'emoji 😀', 'bell \x07', 'del \x7f', 'cr \r', 'lf \n', 'esc \x1b']) {
        expect(await add([['X-Value', value]]), JSON.stringify(value)).toBe('INVALID_REQUEST');
      }
      for (const name of ['Expect', 'upgrade', 'Keep-Alive'])
        expect(await add([[name, 'x']]), name).toBe('INVALID_REQUEST');
      expect(await messageOf(api.addPush('h', { headers: [['Expect', '100-continue']] }))).toContain('Expect');
      // Latin-1 beyond ASCII, tabs and empty values can be sent.
      await api.addPush('h', {
        name: 'sendable',
        headers: [
          ['X-Latin', 'café ÿ'],
          ['X-Tab', 'a\tb'],
          ['X-Empty', ''],
        ],
      });
      expect(await storedHeaders(t, 'sendable')).toEqual([
        ['X-Latin', 'café ÿ'],
        ['X-Tab', 'a\tb'],
        ['X-Empty', ''],
      ]);
      await api.addPush('h', {
        name: 'scheduler',
        headers: [
          ['X-CloudScheduler', 'true'],
          ['x-cloudscheduler-jobname', 'forged'],
          ['X-CloudScheduler-ScheduleTime', 'forged'],
          ['X-Mine', '1'],
        ],
      });
      expect(await storedHeaders(t, 'scheduler')).toEqual([['X-Mine', '1']]);
    });

    it('refuses a URL whose path climbs above its root, in any spelling of the dot segments', async () => {
      const { t } = await start();
      const api = pushPath(kind, t);
      for (const url of [
        '/..',
        '/../x',
        '/a/../../x',
        '/%2e%2e/x',
        '/%2E./x',
        '/.%2e/x',
        '/a/%2e%2E/%2e%2e/x',
        '/a\\..\\..\\x',
        '/./../x',
      ]) {
        expect(await errorCodeOf(api.addPush('h', { url })), url).toBe('INVALID_REQUEST');
      }
      expect(await messageOf(api.addPush('h', { url: '/../x' }))).toContain('climbs above');
      // Dot segments that stay under the root, dots that are no segment, and a query are left as given.
      for (const [i, url] of [
        '/a/../b',
        '/./x',
        '/a/b/../../c',
        '/...',
        '/x..',
        '/x?a=/../../',
        '/%2e%2e%2e',
      ].entries()) {
        await api.addPush('h', { name: `ok-${i}`, url });
      }
      expect(await t.sql(`select count(*)::int as n from ${t.schema}.tasks`)).toEqual([{ n: 7 }]);
    });
  },
);

describe.each(ENGINES)('delete_tasks arguments (%s)', (engine) => {
  const fixture = usePushFixture();

  it('refuses a two-dimensional array of names, as add_tasks refuses one of payloads', async () => {
    const { t } = await fixture.start(engine, { queues: () => [pullQueue('p')] });
    await t.service.getQueue('p').add([{ name: 'a' }, { name: 'b' }]);
    const call = t.sql(`select ${t.schema}.delete_tasks('p', array[['a', 'b'], ['c', 'd']]) as d`);
    expect(await errorCodeOf(call)).toBe('INVALID_REQUEST');
    // Nothing was deleted.
    expect(await t.sql(`select name from ${t.schema}.tasks order by name`)).toEqual([{ name: 'a' }, { name: 'b' }]);
  });
});
