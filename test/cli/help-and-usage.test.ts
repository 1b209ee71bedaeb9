import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshSchema, testPgUrl } from '../helpers/engines.js';
import { cli, openCliDatabase, snapshot } from './cli-harness.js';

/**
 * `--help` on every command prints help and does nothing else (once
 * `migrate --help` migrated and `serve --help` started a server); `--version`;
 * and the exit codes of a wrong command line.
 */

const COMMANDS = [
  'serve',
  'migrate',
  'check-config',
  'cron',
  'token',
  'queues',
  'stats',
  'add',
  'get',
  'lease',
  'search',
  'delete',
  'purge',
  'pause',
  'resume',
  'dead-letters',
  'redrive',
  'export',
  'import',
];

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('help and usage', () => {
  let t: Awaited<ReturnType<typeof openCliDatabase>>;
  beforeAll(async () => {
    t = await openCliDatabase();
    await t.service.getQueue('work').add([
      { name: 'keep-me', payload: 'x' },
      { name: 'and-me', payload: 'y' },
    ]);
  });
  afterAll(() => t.close());

  it.each(COMMANDS)('%s --help prints its help, exits 0 and changes nothing', async (command) => {
    const before = await snapshot(t);
    // Arguments that would make the command act, were it not for --help.
    const argv = [
      command,
      'work',
      'keep-me',
      '--yes',
      '--email',
      'a@example.com',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--help',
    ];
    const run = await cli(argv, { ...t.env, PORT: '0' });
    expect(run.code).toBe(0);
    expect(run.out).toContain(`Usage: taskqueue ${command}`);
    expect(run.err).toBe('');
    expect(await snapshot(t)).toEqual(before);
  });

  it('migrate --help leaves an unmigrated schema unmigrated', async () => {
    const schema = freshSchema();
    const run = await cli(['migrate', '--help'], { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: schema });
    expect(run.code).toBe(0);
    expect(await t.sql(`select 1 from information_schema.schemata where schema_name = $1`, [schema])).toEqual([]);
  });

  it('help COMMAND and -h are the same help', async () => {
    const a = await cli(['help', 'purge'], t.env);
    const b = await cli(['purge', '-h'], t.env);
    expect(a.code).toBe(0);
    expect(a.out).toBe(b.out);
    expect(a.out).toContain('--yes');
  });

  it('--version and -V print the version of package.json', async () => {
    for (const flag of ['--version', '-V']) {
      const run = await cli([flag], {});
      expect(run).toMatchObject({ code: 0, out: `${VERSION}\n` });
    }
  });

  it('--help lists every command and the exit codes', async () => {
    const run = await cli(['--help'], {});
    expect(run.code).toBe(0);
    for (const command of COMMANDS) expect(run.out).toContain(command);
    expect(run.out).toMatch(/0 ok, 1 failure, 2 usage.*3 queue or task not found/);
    // Push queues and cron are as much the service as pull queues.
    expect(run.out).toContain('task queue service, pull and push queues and cron');
  });

  it.each([
    [[] as string[], 'no command'],
    [['bogus'], 'an unknown command'],
    [['queues', '--bogus'], 'an unknown flag'],
    [['stats'], 'a missing argument'],
    [['stats', 'work', 'extra'], 'an extra argument'],
    [['stats', 'no_such!'], 'a bad queue name'],
    [['lease', 'work', '--num', '0'], 'a number out of range'],
    [['lease', 'work', '--lease-secs', 'ten'], 'a number that is not one'],
    [['delete', 'work', 'bad name'], 'a bad task name'],
    [['purge', 'work'], 'purge without --yes'],
    [['add', 'work', 'payload', '--file', 'x'], 'two payloads'],
    [['token', '--email', 'a@example.com', '--ttl', '1h'], 'a bad --ttl'],
  ])('%j (%s) is a usage error: exit 2, a message on stderr, nothing done', async (argv) => {
    const before = await snapshot(t);
    const run = await cli(argv, t.env);
    expect(run.code).toBe(2);
    expect(run.err).not.toBe('');
    expect(run.out).toBe('');
    expect(await snapshot(t)).toEqual(before);
  });

  it('the installed entry point exits with the same codes', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
        encoding: 'utf8',
        env: { ...process.env, ...t.env },
      });
    expect(run(['--version'])).toMatchObject({ status: 0, stdout: `${VERSION}\n` });
    expect(run(['stats', 'no-such-queue'])).toMatchObject({ status: 3 });
  });
});
