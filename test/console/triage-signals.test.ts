import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pullQueue } from '../helpers/configs.js';
import { ENGINES, testPGlite } from '../helpers/engines.js';
import { pushQueue } from '../helpers/push-sink.js';
import { openConsoleHarness, type ConsoleHarness } from './console-harness.js';

/** Nothing listens there: dispatch is off, so tasks stay in the states the test writes. */
const TARGET = 'http://127.0.0.1:9/app';

describe.each(ENGINES)('the triage reads failures from the database (%s)', (engine) => {
  let h: ConsoleHarness | undefined;
  beforeAll(async () => {
    if (engine === 'pglite') await testPGlite();
  }, 180_000);
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('ranks a push queue failing for 55 minutes first, then dead letters arriving, then a growing backlog', async () => {
    h = await openConsoleHarness(engine, {
      auth: false,
      open: { dispatch: false },
      queues: [
        pullQueue('old-dead', { maxLeases: 0 }),
        pullQueue('busy'),
        pullQueue('dying', { maxLeases: 0 }),
        pushQueue('hooks', TARGET),
        pushQueue('calm', TARGET),
      ],
    });
    const { t } = h;
    await t.service.getQueue('hooks').add([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    await t.service.getQueue('calm').add([{ name: 'fresh-retry' }]);
    // As the dispatcher leaves them after failing: retrying, the first attempt 55 minutes ago.
    await t.sql(
      `update ${t.schema}.tasks set retry_count = 9, last_status = 502, last_error = 'HTTP 502',
              first_try_at = now() - interval '55 minutes', eta = now() + interval '60 seconds'
        where name in ('a', 'b')`,
    );
    // A retry under way for a minute: not failing yet.
    await t.sql(
      `update ${t.schema}.tasks set retry_count = 1, last_error = 'connect ECONNREFUSED',
              first_try_at = now() - interval '1 minute', eta = now() + interval '10 seconds' where name = 'fresh-retry'`,
    );
    // Retry limit 0: the first lease drops a task into the dead letters.
    for (const queue of ['old-dead', 'dying']) {
      await t.service.getQueue(queue).add({ name: `${queue}-1` });
      await t.service.getQueue(queue).leaseTasks({ lease: 60, maxTasks: 1 });
    }
    await t.sql(
      `update ${t.schema}.task_dead_letters set died_at = now() - interval '2 days' where name = 'old-dead-1'`,
    );
    for (let i = 0; i < 15; i++) {
      await t.service.getQueue('busy').add(Array.from({ length: 100 }, (_, j) => ({ name: `job-${i}-${j}` })));
    }
    // Ten minutes ago busy had no backlog.
    await t.sql(
      `insert into ${t.schema}.queue_depth_samples (queue, at, available, leased, delayed)
       values ('busy', now() - interval '590 seconds', 0, 0, 0)`,
    );

    const attention = await t.service.attention(['hooks', 'calm', 'old-dead', 'dying'], { deadLetterSeconds: 3600 });
    const byName = Object.fromEntries(attention.map((a) => [a.name, a]));
    expect(byName.hooks).toMatchObject({ failingDeliveries: 2, failingStatus: 502, failingError: 'HTTP 502' });
    expect(byName.hooks!.failingForSeconds).toBeGreaterThan(3290);
    expect(byName.calm).toMatchObject({
      failingDeliveries: 1,
      failingStatus: null,
      failingError: 'connect ECONNREFUSED',
    });
    expect(byName['old-dead']!.deadLettersArrived).toBe(0);
    expect(byName.dying!.deadLettersArrived).toBe(1);

    const response = await h.app.request('http://localhost/console', {
      headers: { host: 'localhost', 'sec-fetch-site': 'same-origin' },
    });
    const html = await response.text();
    const order = [...html.matchAll(/data-queue="([^"]+)"/g)].map((m) => m[1]);
    // The rest in configuration order (the built-in default first).
    expect(order).toEqual(['hooks', 'dying', 'busy', 'default', 'old-dead', 'calm']);
    expect(html).toContain('2 tasks failing, the longest for 55 min: HTTP 502');
    expect(html).toContain('HTTP 502');
    expect(html).toContain('1,500 available, 1,500 more than 10 min ago');
  });
});
