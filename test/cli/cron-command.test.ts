import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import type { Environment } from '../../src/config/service-settings.js';

/** Runs the CLI in this process (these commands need no database) and captures what it prints. */
async function cli(argv: string[], env: Environment = {}): Promise<{ code: number; out: string; err: string }> {
  const chunks = { out: [] as string[], err: [] as string[] };
  const stream = (into: string[]) => ({
    isTTY: false,
    write: (chunk: string | Uint8Array) => into.push(Buffer.from(chunk).toString('utf8')) > 0,
  });
  const code = await runCli(argv, env, stream(chunks.out), stream(chunks.err));
  return { code, out: chunks.out.join(''), err: chunks.err.join('') };
}

const CRON_YAML = `cron:
- name: mailout
  url: /mail/weekly
  schedule: every monday 09:00
  timezone: Australia/NSW
- name: night
  url: /tasks/night
  schedule: every day 02:30
  timezone: America/New_York
- name: quarter-hour
  url: /tasks/tick
  schedule: "*/15 * * * *"
  queue: ticks
  retry_parameters:
    job_retry_limit: 2
`;

let dir: string;
let cronFile: string;
let queueFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cron-cli-'));
  cronFile = join(dir, 'cron.yaml');
  queueFile = join(dir, 'queue.yaml');
  await writeFile(cronFile, CRON_YAML);
  await writeFile(queueFile, 'queue:\n- name: work\n  mode: pull\n- name: ticks\n  rate: 2/s\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('taskqueue cron next', () => {
  it('prints the next firings of each job as ISO UTC lines, across a daylight-saving change', async () => {
    const run = await cli(['cron', 'next', cronFile, '--from', '2026-03-07T12:00:00Z', '--count', '3']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      [
        '# mailout: every monday 09:00 (Australia/NSW)',
        '2026-03-08T22:00:00.000Z',
        '2026-03-15T22:00:00.000Z',
        '2026-03-22T22:00:00.000Z',
        '# night: every day 02:30 (America/New_York)',
        '2026-03-08T07:00:00.000Z',
        '2026-03-09T06:30:00.000Z',
        '2026-03-10T06:30:00.000Z',
        '# quarter-hour: */15 * * * * (UTC)',
        '2026-03-07T12:15:00.000Z',
        '2026-03-07T12:30:00.000Z',
        '2026-03-07T12:45:00.000Z',
        '',
      ].join('\n'),
    );
  });

  it('takes --from with an offset, counts five by default and reads cron.xml', async () => {
    const xml = join(dir, 'cron.xml');
    await writeFile(
      xml,
      '<cronentries><cron><name>hourly</name><url>/h</url><schedule>every 1 hours synchronized</schedule></cron></cronentries>',
    );
    const run = await cli(['cron', 'next', xml, '--from', '2026-03-07T12:10+01:00']);
    expect(run.code).toBe(0);
    expect(run.out.trim().split('\n')).toEqual([
      '# hourly: every 1 hours synchronized (UTC)',
      '2026-03-07T12:00:00.000Z',
      '2026-03-07T13:00:00.000Z',
      '2026-03-07T14:00:00.000Z',
      '2026-03-07T15:00:00.000Z',
      '2026-03-07T16:00:00.000Z',
    ]);
  });

  it('says so when the file has no jobs', async () => {
    const empty = join(dir, 'empty.yaml');
    await writeFile(empty, 'cron:\n');
    expect((await cli(['cron', 'next', empty])).out).toBe(`# ${empty}: no jobs\n`);
  });

  it('refuses bad flags as usage errors (2) and a bad file as a failure (1) naming the job and where parsing stopped', async () => {
    const noZone = await cli(['cron', 'next', cronFile, '--from', '2026-03-07T12:00:00']);
    expect(noZone.code).toBe(2);
    expect(noZone.err).toContain('expected an ISO 8601 instant with Z or an offset');
    expect((await cli(['cron', 'next', cronFile, '--count', '0'])).code).toBe(2);
    expect((await cli(['cron', 'next', cronFile, '--count', '1001'])).code).toBe(2);
    expect((await cli(['cron', 'next'])).code).toBe(2);
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'cron:\n- name: digest\n  url: /d\n  schedule: every 5 minuets\n');
    const refused = await cli(['cron', 'next', bad]);
    expect(refused.code).toBe(1);
    expect(refused.err).toBe(
      `taskqueue cron: ${bad}: job "digest": schedule "every 5 minuets": stopped at column 9 ("minuets"): expected "minutes" or "mins" or "hours"\n`,
    );
    expect(refused.out).toBe('');
  });
});

describe('taskqueue check-config and the cron file', () => {
  const CRON_SUMMARY = [
    `${'CRON'}: OK, 3 cron job(s)`,
    '  mailout: /mail/weekly "every monday 09:00", Australia/NSW',
    '  night: /tasks/night "every day 02:30", America/New_York',
    '  quarter-hour: /tasks/tick "*/15 * * * *", queue ticks, 2 retries',
  ];
  const UNCHECKED = '  (queues not checked: give the queue file too, or set TASKQUEUE_CONFIG)';
  const summary = (file: string, queuesChecked = true): string =>
    [...CRON_SUMMARY, ...(queuesChecked ? [] : [UNCHECKED])].map((line) => line.replace('CRON', file)).join('\n');

  it('checks the cron file given by --cron after the queue file', async () => {
    const run = await cli(['check-config', queueFile, '--cron', cronFile]);
    expect(run.code).toBe(0);
    // Push queues in push terms (they used to read "lease rate 10/1s").
    const push = (rate: number) =>
      `push, rate ${rate}/s, bucket size 5, max concurrent unlimited, to TASKQUEUE_PUSH_BASE_URL (not set here), retries unlimited, backoff 0.1-3600 s, 16 doubling(s)`;
    expect(run.out).toBe(
      `${queueFile}: OK, 3 queue(s)\n  default: ${push(5)}\n  work: pull, leases unlimited, lease rate 10/1s\n  ticks: ${push(2)}\n${summary(cronFile)}\n`,
    );
  });

  it('finds the cron file through TASKQUEUE_CRON, and checks a FILE named cron.yaml as a cron file', async () => {
    const viaEnv = await cli(['check-config'], { TASKQUEUE_CONFIG: queueFile, TASKQUEUE_CRON: cronFile });
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.out).toContain(summary(cronFile));
    const asArgument = await cli(['check-config', cronFile]);
    expect(asArgument.code).toBe(0);
    expect(asArgument.out).toBe(`${summary(cronFile, false)}\n`);
    const twice = await cli(['check-config', cronFile, '--cron', cronFile]);
    expect(twice.code).toBe(2);
    expect(twice.err).toContain('is a cron file, and so is --cron');
  });

  it('finds ./cron.yaml in the working directory when nothing names one', async () => {
    const before = process.cwd();
    process.chdir(dir);
    try {
      const run = await cli(['check-config', queueFile]);
      expect(run.code).toBe(0);
      expect(run.out).toContain(summary('cron.yaml'));
    } finally {
      process.chdir(before);
    }
  });

  it("fails when a job's queue is missing from the queue file or is a pull queue, as start-up does", async () => {
    const pullTicks = join(dir, 'pull-ticks.yaml');
    await writeFile(pullTicks, 'queue:\n- name: ticks\n  mode: pull\n');
    const pull = await cli(['check-config', pullTicks, '--cron', cronFile]);
    expect(pull.code).toBe(1);
    expect(pull.err).toContain('job "quarter-hour"');
    expect(pull.err).toContain('queue "ticks" is a pull queue; cron firings go through a push queue');
    const none = join(dir, 'no-ticks.yaml');
    await writeFile(none, 'queue:\n- name: work\n  mode: pull\n');
    const missing = await cli(['check-config', none, '--cron', cronFile]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('queue "ticks" is not in the queue configuration');
  });

  it('fails on a bad cron file, naming file, job and key, and asks for a file when there is none', async () => {
    const bad = join(dir, 'retry.yaml');
    await writeFile(
      bad,
      'cron:\n- url: /a\n  schedule: every 5 minutes\n  retry_parameters:\n    job_retry_limit: 9\n',
    );
    const refused = await cli(['check-config', queueFile, '--cron', bad]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`${bad}: job #1: job_retry_limit must be an integer from 0 to 5, got "9"`);
    const before = process.cwd();
    process.chdir(tmpdir());
    try {
      const nothing = await cli(['check-config']);
      expect(nothing.code).toBe(1);
      expect(nothing.err).toContain('give a file');
    } finally {
      process.chdir(before);
    }
  });
});
