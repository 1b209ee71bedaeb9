import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { droppedAfterAll, testPgUrl } from '../helpers/engines.js';
import { cli, jsonLines } from './cli-harness.js';

const freshSchema = droppedAfterAll();

/** An operator command that has the configuration writes its queues as a server does; one that has none says how. */
describe('operator commands on a fresh database', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'taskqueue-cli-config-'));
    file = join(dir, 'queue.yaml');
    writeFileSync(file, 'queue:\n- name: q\n  mode: pull\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('migrate, then add with the configuration, works before any server ran', async () => {
    const env = { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: freshSchema(), TASKQUEUE_CONFIG: file };
    expect((await cli(['migrate'], env)).code).toBe(0);
    const added = await cli(['add', 'q', 'hello', '--name', 'first'], env);
    expect(added).toMatchObject({ code: 0 });
    expect(jsonLines((await cli(['queues', '--json'], env)).out).find((row) => row.name === 'q')).toMatchObject({
      availableTasks: 1,
    });
  });

  it('--config does the same; without a configuration the error says how', async () => {
    const schema = freshSchema();
    const env = { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: schema };
    expect((await cli(['migrate'], env)).code).toBe(0);
    const unknown = await cli(['add', 'q', 'hello'], env);
    expect(unknown.code).toBe(3);
    expect(unknown.err).toContain('TASKQUEUE_CONFIG');
    expect((await cli(['add', 'q', 'hello', '--config', file], env)).code).toBe(0);
    // The queues are in the database now: later commands need no configuration.
    expect((await cli(['add', 'q', 'again'], env)).code).toBe(0);
  });
});

/** `taskqueue config sync` is the deliberate way to write the definitions; a command with another configuration is refused. */
describe('config sync and configurations that disagree', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'taskqueue-cli-sync-'));
    writeFileSync(join(dir, 'v1.yaml'), 'queue:\n- name: q\n  mode: pull\n  retry_parameters: {task_retry_limit: 3}\n');
    writeFileSync(
      join(dir, 'v2.yaml'),
      'queue:\n- name: q\n  mode: pull\n  retry_parameters: {task_retry_limit: 0}\n- name: r\n  mode: pull\n',
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes revisions, refuses to go back unless forced, and a command with a disagreeing --config is refused naming the queues', async () => {
    const env = { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: freshSchema() };
    const [v1, v2] = [join(dir, 'v1.yaml'), join(dir, 'v2.yaml')];
    expect(await cli(['config', 'sync', v1], env)).toMatchObject({
      code: 0,
      out: `queue definitions written from ${v1}: revision 1, 2 queue(s)\n`,
    });
    expect(await cli(['config', 'sync', v1], env)).toMatchObject({
      code: 0,
      out: `queue definitions already current: revision 1 (${v1})\n`,
    });

    const refused = await cli(['add', 'q', 'x', '--config', v2], env);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain(
      `${v2} disagrees with the queue definitions in the database (revision 1, written from ${v1}`,
    );
    expect(refused.err).toContain('"q" differs in retry limit; "r" is not defined in the database');
    // Without a configuration the command serves the database's queues.
    expect((await cli(['add', 'q', 'x'], env)).code).toBe(0);

    expect(await cli(['config', 'sync', v2], env)).toMatchObject({
      code: 0,
      out: `queue definitions written from ${v2}: revision 2, 3 queue(s)\n`,
    });
    const back = await cli(['config', 'sync', v1], env);
    expect(back.code).not.toBe(0);
    expect(back.err).toContain('is the configuration of revision 1');
    expect(await cli(['config', 'sync', '--force', v1], env)).toMatchObject({
      code: 0,
      out: `queue definitions written from ${v1}: revision 3, 2 queue(s)\n`,
    });
    expect(jsonLines((await cli(['queues', '--json'], env)).out).map((row) => row.name)).toEqual(['default', 'q']);
  });
});
