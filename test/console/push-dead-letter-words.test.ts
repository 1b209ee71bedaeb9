import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue } from '../helpers/configs.js';
import { pushQueue } from '../helpers/push-sink.js';
import { openConsoleHarness, type ConsoleHarness } from './console-harness.js';

/** A push task's dead letter is told in delivery words: nothing leased it, nobody was to delete it. */
describe("dead letters page: the reason in the queue mode's words", () => {
  let h: ConsoleHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('says delivery attempts for a push task and leases for a pull task', async () => {
    h = await openConsoleHarness('postgres', {
      auth: false,
      open: { dispatch: false },
      queues: [pushQueue('hooks', 'http://127.0.0.1:9/app'), pullQueue('jobs')],
    });
    const { t } = h;
    // As the dispatcher and the lease leave them (sql/0008, sql/0012): the row a task's last attempt moved there.
    await t.sql(
      `insert into ${t.schema}.task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, push, last_status, last_error)
       select id, 'hook-dead', null, '\\x'::bytea, 3, now(), '{"url": "/x", "method": "POST", "headers": []}'::jsonb, 500, 'HTTP 500'
         from ${t.schema}.queues where name = 'hooks'`,
    );
    await t.sql(
      `insert into ${t.schema}.task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at)
       select id, 'job-dead', null, '\\x'::bytea, 1, now() from ${t.schema}.queues where name = 'jobs'`,
    );
    const page = async (queue: string) => {
      const response = await h!.app.request(`http://localhost/console/queues/${queue}/dead-letters`, {
        headers: { host: 'localhost', 'sec-fetch-site': 'same-origin' },
      });
      expect(response.status).toBe(200);
      return response.text();
    };
    const reason = (html: string) => /data-label="Reason">([^<]*)</.exec(html)?.[1];
    const push = await page('hooks');
    expect(reason(push)).toBe('delivery failed 3 times, last HTTP 500');
    expect(push).not.toMatch(/leased|never deleted/);
    expect(reason(await page('jobs'))).toBe('retry limit: leased 1 time, never deleted');
  });
});
