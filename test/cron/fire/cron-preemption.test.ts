import { Hono } from 'hono';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { cronListLines } from '../../../src/cli/commands/cron-jobs.js';
import { mountConsole } from '../../../src/console/mount-console.js';
import { createApp } from '../../../src/http/create-app.js';
import { parseCronText } from '../../../src/config/load-cron-config.js';
import type { CronFiringOutcome } from '../../../src/core/cron/cron-store.js';
import { isQueueError } from '../../../src/core/errors.js';
import type { Logger } from '../../../src/core/logger.js';
import type { WiringOptions } from '../../../src/open-task-queue.js';
import { pullQueue, serviceConfig } from '../../helpers/configs.js';
import { openTestService, testPgUrl, type TestService } from '../../helpers/engines.js';
import { startSink, type Sink } from '../../helpers/push-sink.js';
import { FakeCronClock, until } from './fake-cron-clock.js';

/**
 * Issue 30: a producer added the next firing's task name first, and the
 * firing was skipped in silence (its handler got the producer's request,
 * and `cron list` said "added"). Firing names are reserved now: no
 * producer path adds one. A name taken anyway (before the reservation, or
 * by a write into the table) makes the firing `skipped`, visibly.
 */
const CRON = 'cron:\n- name: tick\n  url: /tick\n  schedule: every 1 minutes\n';
const NEXT = 'cron-tick-20260301T090100Z';

describe('a producer cannot pre-empt a cron firing (PostgreSQL)', () => {
  let t: TestService | undefined;
  let sink: Sink | undefined;
  afterEach(async () => {
    await t?.close();
    await sink?.close();
    t = undefined;
    sink = undefined;
  });

  async function open(clock: FakeCronClock, outcomes: CronFiringOutcome[] = [], logged: string[] = []) {
    sink = await startSink(() => ({ status: 200 }));
    const at = (fields: object, message = '') => logged.push(`${message} ${JSON.stringify(fields)}`);
    const logger: Logger = { debug: () => {}, info: () => {}, warn: at, error: at, child: () => logger };
    const open: Partial<WiringOptions> = {
      cron: parseCronText(CRON, 'cron.yaml', 'yaml'),
      pushBaseUrl: sink.url,
      pushSigning: false,
      cronClock: clock,
      logger,
      cronEvents: { fired: (_job, outcome) => outcomes.push(outcome) },
    };
    t = await openTestService('postgres', serviceConfig([pullQueue('jobs')]), { open: open as WiringOptions });
    await until(() => clock.waiting);
    return t;
  }

  it('refuses the name of a firing on every producer path: in-process, REST, and the SQL API as the producer role', async () => {
    const test = await open(new FakeCronClock('2026-03-01T09:00:30Z'));
    const refused = async (add: () => Promise<unknown>) => {
      try {
        await add();
        return 'added';
      } catch (error) {
        return isQueueError(error, 'INVALID_TASK_NAME') ? error.message : String(error);
      }
    };
    // In-process, to the cron queue and to a pull queue; a run's name too.
    expect(
      await refused(() => test.service.getQueue('cron').add({ name: NEXT, method: 'GET', url: '/forged' })),
    ).toMatch(
      /task name "cron-tick-20260301T090100Z" has the form of a cron firing .* which only the cron service adds/,
    );
    expect(
      await refused(() => test.service.getQueue('jobs').add({ name: 'cron-tick-run-20260301T090100123Z' })),
    ).toMatch(/only the cron service adds/);

    // REST (access control off: the caller is an administrator, who may reach push queues too).
    const app = createApp({ service: test.service });
    const path = (queue: string) => `/taskqueue/v1beta2/projects/local/taskqueues/${queue}/tasks`;
    for (const queue of ['jobs', 'cron']) {
      const response = await app.request(path(queue), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: NEXT, payloadBase64: '' }),
      });
      expect(response.status, queue).toBe(400);
      expect(await response.text()).toContain('only the cron service adds');
    }

    // The SQL API, as a role holding only the producer role.
    const admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    const role = `app_${test.schema}`;
    await admin.query(`create role ${role} nologin`);
    await admin.query(`grant ${test.schema}_producer to ${role}`);
    const asProducer = async (text: string, params: unknown[]) => {
      await admin.query('begin');
      try {
        await admin.query(`set local role ${role}`);
        await admin.query(text, params);
        return 'added';
      } catch (error) {
        const { code, message } = error as { code?: string; message: string };
        return `${code}: ${message}`;
      } finally {
        await admin.query('rollback');
      }
    };
    try {
      const s = test.schema;
      expect(
        await asProducer(`select ${s}.add_push_task('cron', url => '/forged', method => 'GET', name => $1)`, [NEXT]),
      ).toBe(
        `TQ005: task name "${NEXT}" has the form of a cron firing (cron-<job>-<YYYYMMDDTHHMMSS>Z), which only the cron service adds`,
      );
      expect(await asProducer(`select ${s}.add_task('jobs', 'x'::bytea, $1)`, [NEXT])).toMatch(
        /^TQ005: .*only the cron service adds \(task 1\)$/,
      );
      expect(
        await asProducer(`select ${s}.add_tasks('jobs', array['a', 'b']::bytea[], array['fine', $1])`, [NEXT]),
      ).toMatch(/^TQ005: .*\(task 2\)$/);
      // Names that only look alike are a producer's to take.
      expect(
        await asProducer(
          `select ${s}.add_push_task('cron', url => '/mine', method => 'GET', name => 'cron-tick-2026')`,
          [],
        ),
      ).toBe('added');
    } finally {
      await admin.query(`drop owned by ${role}`).catch(() => {});
      await admin.query(`drop role if exists ${role}`);
      await admin.end();
    }
    expect(await test.sql(`select name from ${test.schema}.tasks`)).toEqual([]);
  });

  it(
    'a firing whose name was taken anyway is recorded, counted and logged as skipped, and the next one fires',
    { timeout: 60_000 },
    async () => {
      const clock = new FakeCronClock('2026-03-01T09:00:30Z');
      const outcomes: CronFiringOutcome[] = [];
      const logged: string[] = [];
      const test = await open(clock, outcomes, logged);
      const s = test.schema;
      // Taken before names were reserved: a live task at 09:01 (held back a day), a delivered one's tombstone at 09:02.
      await test.sql(
        `insert into ${s}.tasks (queue_id, name, eta, payload, push)
       select id, $1, now() + interval '1 day', '\\x'::bytea,
              '{"url":"/forged","method":"POST","headers":[["X-CloudScheduler","true"]],"retry":null,"deadlineSeconds":null}'::jsonb
         from ${s}.queues where name = 'cron'`,
        [NEXT],
      );
      await test.sql(
        `insert into ${s}.task_tombstones (queue_id, name, reason) select id, $1, 'deleted' from ${s}.queues where name = 'cron'`,
        ['cron-tick-20260301T090200Z'],
      );

      clock.set('2026-03-01T09:01:00Z');
      await until(() => outcomes.length === 1 && clock.waiting);
      let tick = (await test.service.cronJobs())[0]!;
      expect(tick).toMatchObject({ lastOutcome: 'skipped', lastTask: NEXT });
      expect(tick.lastError).toMatch(
        /task name cron-tick-20260301T090100Z was taken by a task the cron service did not add .*this firing did not happen/,
      );
      expect(cronListLines(tick)[2]).toMatch(/ cron-tick-20260301T090100Z skipped: task name .* was taken/);
      expect(
        logged.some((line) => line.startsWith('cron: firing skipped: its task name was taken') && line.includes(NEXT)),
      ).toBe(true);
      const consoleApp = new Hono();
      const mounted = mountConsole(consoleApp, {
        service: test.service,
        auditLog: test.service.auditLog,
        cronJobs: () => test.service.cronJobs(),
      });
      try {
        const html = await (await consoleApp.request('/console/cron')).text();
        expect(html).toMatch(/<tr data-job="tick" data-outcome="skipped">/);
        expect(html).toContain('skipped: task name cron-tick-20260301T090100Z was taken');
      } finally {
        await mounted.close();
      }

      clock.set('2026-03-01T09:02:00Z');
      await until(() => outcomes.length === 2 && clock.waiting);
      tick = (await test.service.cronJobs())[0]!;
      expect(tick).toMatchObject({ lastOutcome: 'skipped', lastTask: 'cron-tick-20260301T090200Z' });
      expect(tick.lastError).toContain('deleted');

      clock.set('2026-03-01T09:03:00Z');
      await until(() => sink!.requests.length === 1);
      expect(sink!.requests[0]!.url).toBe('/tick');
      expect(outcomes).toEqual(['skipped', 'skipped', 'added']);
      expect((await test.service.cronJobs())[0]).toMatchObject({
        lastOutcome: 'added',
        lastTask: 'cron-tick-20260301T090300Z',
        lastError: null,
      });
    },
  );
});
