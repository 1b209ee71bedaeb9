import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testPgUrl } from '../helpers/engines.js';
import { pushQueue } from '../helpers/push-sink.js';
import { spawnServer, type ChildServer } from '../ops/child-server.js';
import { usePushFixture } from './push-fixture.js';

describe('push delivery across a crash', () => {
  const push = usePushFixture();
  let child: ChildServer | undefined;
  // Registered after the fixture's, so it runs first (hooks run as a stack): the child goes before the service.
  afterEach(async () => {
    child?.kill('SIGKILL');
    await child?.exited;
  });

  it('a kill -9 of a dispatching server with requests in flight loses nothing: its heartbeat stops, and another process recovers its claims and delivers', async () => {
    let answering = false;
    const held: (() => void)[] = [];
    const { t, sink, config } = await push.start('postgres', {
      answer: () => (answering ? { status: 200 } : new Promise((resolve) => held.push(() => resolve({ status: 200 })))),
      queues: (url) => [pushQueue('hooks', url)],
      open: { open: { dispatch: false } },
    });
    const dir = mkdtempSync(join(tmpdir(), 'tq-push-crash-'));
    writeFileSync(
      join(dir, 'queue.yaml'),
      `queue:\n- name: hooks\n  rate: 1000/s\n  bucket_size: 1000\n  target_url: ${sink.url}\n`,
    );
    child = spawnServer({
      DATABASE_URL: testPgUrl(),
      TASKQUEUE_SCHEMA: t.schema,
      TASKQUEUE_CONFIG: join(dir, 'queue.yaml'),
    });
    await child.started;
    const names = ['c1', 'c2', 'c3', 'c4', 'c5'];
    await t.service.getQueue('hooks').add(names.map((name) => ({ name, payload: name })));
    await sink.waitFor(5);
    child.kill('SIGKILL');
    await child.exited;
    child = undefined;
    const inFlight = await t.sql<{ name: string; claimed_by: string }>(
      `select name, claimed_by::text from ${t.schema}.tasks where dispatched_at is not null and eta > now() + interval '10 minutes' order by name`,
    );
    expect(inFlight.map((row) => row.name)).toEqual(names);
    // Their claims end ten and a half minutes from now, but the server's heartbeat stopped: as if its 15 s lease had passed.
    await t.sql(`update ${t.schema}.push_dispatchers set expires_at = now() - interval '1 second' where id = $1`, [
      inFlight[0]!.claimed_by,
    ]);
    answering = true;
    // Another process, with no configuration of its own: it serves the definitions the killed server wrote.
    await t.openAnother(config, { config: undefined });
    await sink.waitFor(10);
    await expect.poll(async () => (await t.sql(`select name from ${t.schema}.tasks`)).length).toBe(0);
    const delivered = sink.requests.map((r) => r.body.toString());
    for (const name of names) expect(delivered.filter((body) => body === name)).toHaveLength(2);
    expect(sink.requests.slice(5).every((r) => r.headers['x-appengine-taskretrycount'] === '1')).toBe(true);
    for (const release of held) release();
  });
});
