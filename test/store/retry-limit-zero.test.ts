import { afterEach, describe, expect, it } from 'vitest';
import { parseQueueYaml } from '../../src/config/parse-queue-yaml.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { startSink, type Sink } from '../helpers/push-sink.js';

/**
 * `task_retry_limit: 0` from an unchanged queue.yaml means what App Engine
 * means: no retry. It used to be read as unlimited (AppScale), and a push
 * task failing with 500 was tried 10 times in 61 s and counting.
 */
describe.each(ENGINES)('task_retry_limit 0 (%s)', (engine) => {
  let t: TestService | undefined;
  let sink: Sink | undefined;
  afterEach(async () => {
    await t?.close();
    await sink?.close();
    t = undefined;
    sink = undefined;
  });

  it('tries a push task once: a failure goes to the dead letters, never to a retry', async () => {
    sink = await startSink(() => ({ status: 500 }));
    const config = parseQueueYaml(
      `queue:\n- name: once\n  rate: 50/s\n  target_url: ${sink.url}\n  retry_parameters:\n    task_retry_limit: 0\n    min_backoff_seconds: 0.1\n`,
      'queue.yaml',
    );
    t = await openTestService(engine, config);
    await t.service.getQueue('once').add({ name: 'only-once', url: '/x' });
    await expect
      .poll(async () => (await t!.operate('once').listDeadLetters({ limit: 10 })).map((d) => d.name), {
        timeout: 20_000,
      })
      .toEqual(['only-once']);
    expect(sink.requests).toHaveLength(1);
    expect(await t.sql(`select count(*)::int as n from ${t.schema}.tasks`)).toEqual([{ n: 0 }]);
  });

  it('never leases a pull task: its first lease attempt moves it to the dead letters (App Engine)', async () => {
    const config = parseQueueYaml(
      'queue:\n- name: never\n  mode: pull\n  retry_parameters:\n    task_retry_limit: 0\n',
      'queue.yaml',
    );
    t = await openTestService(engine, config);
    const queue = t.service.getQueue('never');
    await queue.add({ name: 'dropped', payload: 'p' });
    expect(await queue.leaseTasks({ lease: 60, maxTasks: 10 })).toEqual([]);
    expect((await t.operate('never').listDeadLetters({ limit: 10 })).map((d) => [d.name, d.retryCount])).toEqual([
      ['dropped', 0],
    ]);
    // The SQL API's lease_tasks is generated from the same statement: the same rule.
    await queue.add({ name: 'dropped-too', payload: 'p' });
    expect(await t.sql(`select name from ${t.schema}.lease_tasks('never', 10, 60)`)).toEqual([]);
    expect((await t.operate('never').listDeadLetters({ limit: 10 })).map((d) => d.name).sort()).toEqual([
      'dropped',
      'dropped-too',
    ]);
  });

  it('keeps a limit of 1 as one lease, and stores 0 as 0', async () => {
    const config = parseQueueYaml(
      'queue:\n- name: zero\n  mode: pull\n  retry_parameters: {task_retry_limit: 0}\n- name: one\n  mode: pull\n  retry_parameters: {task_retry_limit: 1}\n',
      'queue.yaml',
    );
    t = await openTestService(engine, config);
    expect(
      await t.sql(`select name, max_leases from ${t.schema}.queues where name in ('zero', 'one') order by name`),
    ).toEqual([
      { name: 'one', max_leases: 1 },
      { name: 'zero', max_leases: 0 },
    ]);
    const one = t.service.getQueue('one');
    await one.add({ name: 'a' });
    expect((await one.leaseTasks({ lease: 60, maxTasks: 1 })).map((task) => task.name)).toEqual(['a']);
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    expect(await one.leaseTasks({ lease: 60, maxTasks: 1 })).toEqual([]);
  });
});
