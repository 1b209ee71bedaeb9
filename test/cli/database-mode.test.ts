import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cli, jsonLines, openCliDatabase } from './cli-harness.js';
import { operatorOf } from '../helpers/operator-of.js';

/** Every operator command straight on PostgreSQL (DATABASE_URL), as a script would use them. */

describe('operator commands on the database', () => {
  let t: Awaited<ReturnType<typeof openCliDatabase>>;
  let dir: string;
  beforeAll(async () => {
    t = await openCliDatabase();
    dir = mkdtempSync(join(tmpdir(), 'taskqueue-cli-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    for (const queue of ['work', 'other', 'fragile']) await operatorOf(t.service.getQueue(queue)).purge();
    await t.sql(`delete from ${t.schema}.task_tombstones`);
    await t.sql(`delete from ${t.schema}.task_dead_letters`);
    await t.sql(`update ${t.schema}.queues set paused = false`);
  });

  it('add takes the payload from the argument, --file or stdin, with --tag, --name and --countdown', async () => {
    const fromArg = await cli(['add', 'work', 'hello', '--tag', 'greeting', '--name', 'first'], t.env);
    expect(fromArg.code).toBe(0);
    const [added] = jsonLines(fromArg.out);
    expect(added).toMatchObject({
      name: 'first',
      queue: 'work',
      tag: 'greeting',
      retryCount: 0,
      payloadBase64: Buffer.from('hello').toString('base64'),
    });

    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    writeFileSync(join(dir, 'payload.bin'), bytes);
    const fromFile = await cli(['add', 'work', '--file', join(dir, 'payload.bin'), '--name', 'binary'], t.env);
    expect(fromFile.code).toBe(0);
    const fromStdin = await cli(['add', 'work', '--countdown', '3600'], t.env, { stdin: 'piped in' });
    expect(fromStdin.code).toBe(0);
    const piped = jsonLines(fromStdin.out)[0] as { name: string; etaUsec: number; enqueuedUsec: number };
    expect(piped.etaUsec - piped.enqueuedUsec).toBeGreaterThan(3590 * 1e6);

    const stored = await t.service.getQueue('work').listTasks();
    expect(stored.map((task) => [task.name, task.payload.toString('hex')]).sort()).toEqual(
      [
        ['binary', bytes.toString('hex')],
        ['first', Buffer.from('hello').toString('hex')],
        [piped.name, Buffer.from('piped in').toString('hex')],
      ].sort(),
    );
  });

  it('add to an unknown queue exits 3; a name in use exits 1; nothing is added', async () => {
    expect((await cli(['add', 'nope', 'x'], t.env)).code).toBe(3);
    expect((await cli(['add', 'work', 'x', '--name', 'dup'], t.env)).code).toBe(0);
    const again = await cli(['add', 'work', 'y', '--name', 'dup'], t.env);
    expect(again.code).toBe(1);
    expect(again.err).toContain('dup');
    expect((await t.service.getQueue('work').getTask('dup')).payload.toString()).toBe('x');
  });

  it('lease prints tasks as JSON lines, honours --num, --lease-secs and --tag, and prints nothing when none is left', async () => {
    await t.service.getQueue('work').add([
      { name: 'a', payload: 'A', tag: 'red' },
      { name: 'b', payload: 'B', tag: 'blue' },
      { name: 'c', payload: 'C', tag: 'red' },
    ]);
    const red = await cli(['lease', 'work', '--num', '5', '--lease-secs', '300', '--tag', 'red'], t.env);
    expect(red.code).toBe(0);
    const tasks = jsonLines(red.out) as {
      name: string;
      retryCount: number;
      etaUsec: number;
      enqueuedUsec: number;
      payloadBase64: string;
    }[];
    expect(tasks.map((task) => task.name).sort()).toEqual(['a', 'c']);
    expect(tasks[0]).toMatchObject({ retryCount: 1, queue: 'work', tag: 'red' });
    const [row] = await t.sql<{ remaining: number }>(
      `select extract(epoch from eta - now())::float8 as remaining from ${t.schema}.tasks where name = 'a'`,
    );
    const remaining = row?.remaining ?? 0;
    expect(remaining).toBeGreaterThan(290);
    expect(remaining).toBeLessThanOrEqual(300);
    const rest = await cli(['lease', 'work', '--num', '5'], t.env);
    expect(jsonLines(rest.out).map((task) => task.name)).toEqual(['b']);
    const none = await cli(['lease', 'work'], t.env);
    expect(none).toMatchObject({ code: 0, out: '' });
  });

  it('delete deletes by name and exits 3 when a name was not a live task', async () => {
    await t.service.getQueue('work').add([{ name: 'd1' }, { name: 'd2' }]);
    const both = await cli(['delete', 'work', 'd1', 'd2'], t.env);
    expect(both).toMatchObject({ code: 0, out: 'deleted 2 of 2 task(s) from work\n' });
    await t.service.getQueue('work').add({ name: 'd3' });
    const partly = await cli(['delete', 'work', 'd3', 'never-was'], t.env);
    expect(partly.code).toBe(3);
    expect(partly.err).toContain('never-was');
    expect(await t.service.getQueue('work').listTasks()).toEqual([]);
  });

  it('queues and stats show depth and state, as a table or as JSON', async () => {
    await t.service.getQueue('work').add([{ name: 'q1' }, { name: 'q2' }, { name: 'q3', countdownSeconds: 600 }]);
    await t.service.getQueue('work').leaseTasks({ lease: 60, maxTasks: 1 });
    await operatorOf(t.service.getQueue('other')).pause();

    const table = await cli(['queues'], t.env);
    expect(table.code).toBe(0);
    const lines = table.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^QUEUE\s+MODE\s+STATE\s+AVAILABLE\s+LEASED\s+DELAYED\s+OLDEST\s+DEAD\s+LEASED\/H\s+RATE\s+BUCKET\s+TOKENS\s+IN FLIGHT$/,
    );
    expect(lines.find((line) => line.startsWith('work'))).toMatch(
      /^work\s+pull\s+running\s+1\s+1\s+1\s+\d+s\s+0\s+\d+\s+-\s+-\s+-\s+-$/,
    );
    expect(lines.find((line) => line.startsWith('other'))).toMatch(
      /^other\s+pull\s+paused\s+0\s+0\s+0\s+-\s+0\s+\d+\s+-\s+-\s+-\s+-$/,
    );
    expect(lines.find((line) => line.startsWith('default'))).toMatch(
      /^default\s+push\s+running\s+0\s+0\s+0\s+-\s+0\s+0\s+5\/s\s+5\s+5\s+0$/,
    );

    const json = await cli(['queues', '--json'], t.env);
    const rows = jsonLines(json.out);
    expect(rows.map((row) => row.name).sort()).toEqual(['default', 'fragile', 'other', 'work']);
    expect(rows.find((row) => row.name === 'work')).toMatchObject({
      availableTasks: 1,
      leasedTasks: 1,
      delayedTasks: 1,
      paused: false,
    });

    const stats = await cli(['stats', 'work', '--json'], t.env);
    const parsed = JSON.parse(stats.out) as { leasedLastHour: number };
    expect(parsed).toMatchObject({ name: 'work', availableTasks: 1, leasedTasks: 1, delayedTasks: 1 });
    expect(parsed.leasedLastHour).toBeGreaterThanOrEqual(1);
    const statsTable = await cli(['stats', 'other'], t.env);
    expect(statsTable.out).toMatch(/^state\s+paused$/m);
    expect((await cli(['stats', 'nope'], t.env)).code).toBe(3);
  });

  it('pause makes leases return nothing for every process; resume lets them return tasks again', async () => {
    await t.service.getQueue('work').add({ name: 'p1', payload: 'x' });
    expect(await cli(['pause', 'work'], t.env)).toMatchObject({ code: 0, out: 'queue work paused\n' });
    expect(await t.service.getQueue('work').isPaused()).toBe(true);
    expect(await cli(['lease', 'work'], t.env)).toMatchObject({ code: 0, out: '' });
    expect(await cli(['resume', 'work'], t.env)).toMatchObject({ code: 0, out: 'queue work resumed\n' });
    expect(jsonLines((await cli(['lease', 'work'], t.env)).out).map((task) => task.name)).toEqual(['p1']);
    expect((await cli(['pause', 'nope'], t.env)).code).toBe(3);
  });

  it('purge --yes deletes every task of the queue and no other', async () => {
    await t.service.getQueue('work').add([{ name: 'x1' }, { name: 'x2' }]);
    await t.service.getQueue('other').add({ name: 'stays' });
    expect(await cli(['purge', 'work', '--yes'], { ...t.env, USER: 'alice' })).toMatchObject({
      code: 0,
      out: 'purged 2 task(s) from work\n',
    });
    const [entry] = await t.sql(
      `select actor, action, queue, count, source from ${t.schema}.audit_log order by id desc limit 1`,
    );
    expect(entry).toMatchObject({ action: 'purge', queue: 'work', count: 2, source: 'cli' });
    expect((entry as { actor: string }).actor).toBe('cli:alice');
    expect(await t.service.getQueue('work').listTasks()).toEqual([]);
    expect((await t.service.getQueue('other').listTasks()).map((task) => task.name)).toEqual(['stays']);
  });

  it('run-now makes named tasks or all matching due now; attempts lists what failed', async () => {
    const work = t.service.getQueue('work');
    await work.add([
      { name: 'later-1', tag: 'x', countdownSeconds: 3600 },
      { name: 'later-2', tag: 'x', countdownSeconds: 3600 },
      { name: 'later-3', countdownSeconds: 3600 },
    ]);
    expect(await cli(['run-now', 'work', 'later-3', 'nobody'], t.env)).toMatchObject({
      code: 3,
      out: 'made 1 task(s) of work due now\n',
    });
    expect(await cli(['run-now', 'work', '--all', '--tag', 'x', '--dry-run'], t.env)).toMatchObject({
      code: 0,
      out: '2 task(s) of work would run now\n',
    });
    expect(await cli(['run-now', 'work', '--all', '--state', 'delayed', '--tag', 'x'], t.env)).toMatchObject({
      code: 0,
      out: 'made 2 task(s) of work due now\n',
    });
    expect((await cli(['run-now', 'work'], t.env)).code).toBe(2);

    const [task] = await work.leaseTasks({ lease: 60, maxTasks: 1 });
    await work.failTask(task!, new Error('disk full'));
    const table = await cli(['attempts', 'work', task!.name], t.env);
    expect(table.out).toMatch(
      /^ATTEMPT\s+ENDED\s+OUTCOME\s+STATUS\s+MS\s+ERROR\n\s*1\s+\S+Z\s+failed\s+-\s+-\s+disk full$/m,
    );
    expect(jsonLines((await cli(['attempts', 'work', task!.name, '--json'], t.env)).out)).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'failed', error: 'disk full' }),
    ]);
  });

  it('dead-letters lists what the retry limit dropped; redrive puts it back', async () => {
    const fragile = t.service.getQueue('fragile');
    await fragile.add([
      { name: 'dies-1', payload: 'one', tag: 't' },
      { name: 'dies-2', payload: 'two' },
    ]);
    await fragile.leaseTasks({ lease: 60, maxTasks: 10 });
    await t.sql(`update ${t.schema}.tasks set eta = now() - interval '1 second'`);
    expect(await fragile.leaseTasks({ lease: 60, maxTasks: 10 })).toEqual([]);

    const table = await cli(['dead-letters', 'fragile'], t.env);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/^NAME\s+TAG\s+ATTEMPTS\s+DIED\s+BYTES\s+LAST ERROR\n/);
    expect(table.out).toMatch(/^dies-1\s+t\s+1\s+\d{4}-\d\d-\d\dT\S+Z\s+3\s+-$/m);
    const json = jsonLines((await cli(['dead-letters', 'fragile', '--json'], t.env)).out);
    expect(
      json.map((letter) => [letter.name, Buffer.from(letter.payloadBase64 as string, 'base64').toString()]).sort(),
    ).toEqual([
      ['dies-1', 'one'],
      ['dies-2', 'two'],
    ]);

    expect(await cli(['redrive', 'fragile', 'dies-1'], t.env)).toMatchObject({
      code: 0,
      out: 'redriven 1 dead letter(s) to fragile\n',
    });
    const missing = await cli(['redrive', 'fragile', 'dies-1', 'never-died'], t.env);
    expect(missing.code).toBe(3);
    expect(await cli(['redrive', 'fragile'], t.env)).toMatchObject({
      code: 0,
      out: 'redriven 1 dead letter(s) to fragile\n',
    });
    const back = await fragile.listTasks();
    expect(back.map((task) => [task.name, task.retryCount]).sort()).toEqual([
      ['dies-1', 0],
      ['dies-2', 0],
    ]);
    expect((await cli(['dead-letters', 'fragile'], t.env)).out).toBe('NAME  TAG  ATTEMPTS  DIED  BYTES  LAST ERROR\n');
  });

  it('a schema the servers never made is a failure that names it, and is not created', async () => {
    const run = await cli(['queues'], { ...t.env, TASKQUEUE_SCHEMA: 'no_such_schema_here' });
    expect(run.code).toBe(1);
    expect(run.err).toContain('schema "no_such_schema_here" of the database holds no taskqueue tables');
    expect(await t.sql(`select 1 from information_schema.schemata where schema_name = 'no_such_schema_here'`)).toEqual(
      [],
    );
  });

  it('a database that cannot be reached is a failure (exit 1) with a message', async () => {
    const run = await cli(['queues'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^taskqueue queues: /);
  });
});
