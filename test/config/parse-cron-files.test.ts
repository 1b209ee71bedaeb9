import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_CRON_JOBS } from '../../src/config/build-cron-config.js';
import { parseCronXml } from '../../src/config/parse-cron-xml.js';
import { parseCronYaml } from '../../src/config/parse-cron-yaml.js';
import { defaultCronJobName } from '../../src/core/cron/cron-job.js';
import { catchConfigError } from './catch-config-error.js';

const fixture = (name: string): string => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');

const NO_RETRY = {
  jobRetryLimit: null,
  jobAgeLimitSeconds: null,
  minBackoffSeconds: null,
  maxBackoffSeconds: null,
  maxDoublings: null,
};

describe('cron.yaml and cron.xml: valid files', () => {
  it('reads every key of a full cron.yaml', () => {
    const config = parseCronYaml(fixture('full-cron.yaml'), 'app/cron.yaml');
    expect(config.source).toBe('app/cron.yaml');
    expect(config.jobs.map((job) => job.name)).toEqual([
      defaultCronJobName({ url: '/tasks/summary', schedule: 'every 24 hours' }),
      defaultCronJobName({ url: '/mail/weekly', schedule: 'every monday 09:00', timezone: 'Australia/NSW' }),
      defaultCronJobName({ url: '/tasks/summary', schedule: 'every 24 hours', target: 'beta' }),
      'quarterly-report',
      'cleanup',
    ]);
    expect(config.jobs[0]).toEqual({
      name: config.jobs[0]!.name,
      url: '/tasks/summary',
      schedule: 'every 24 hours',
      description: 'daily summary job',
      timezone: 'UTC',
      target: null,
      queue: null,
      retry: NO_RETRY,
    });
    expect(config.jobs[3]).toEqual({
      name: 'quarterly-report',
      url: '/reports/quarterly?format=pdf',
      schedule: '1st mon of quarter 07:30',
      description: 'first monday of each quarter',
      timezone: 'Europe/Paris',
      target: null,
      queue: 'reports',
      retry: {
        jobRetryLimit: 3,
        jobAgeLimitSeconds: 172_800,
        minBackoffSeconds: 2.5,
        maxBackoffSeconds: 300,
        maxDoublings: 4,
      },
    });
    expect(config.jobs[4]).toMatchObject({
      schedule: '*/15 * * * *',
      retry: { ...NO_RETRY, jobAgeLimitSeconds: 5400 },
    });
  });

  it('reads the same jobs from cron.xml', () => {
    const yaml = parseCronYaml(fixture('full-cron.yaml'), 'cron');
    const xml = parseCronXml(fixture('full-cron.xml'), 'cron');
    expect(xml).toEqual(yaml);
  });

  it("reads App Engine's cron.yaml example verbatim (two jobs that differ only by target get two names)", () => {
    const config = parseCronYaml(
      `cron:
- description: "daily summary job"
  url: /tasks/summary
  schedule: every 24 hours
- description: "monday morning mailout"
  url: /mail/weekly
  schedule: every monday 09:00
  timezone: Australia/NSW
- description: "new daily summary job"
  url: /tasks/summary
  schedule: every 24 hours
  target: beta
`,
      'cron.yaml',
    );
    expect(new Set(config.jobs.map((job) => job.name)).size).toBe(3);
    expect(config.jobs[2]).toMatchObject({ target: 'beta', timezone: 'UTC' });
  });

  it("takes an empty file, an empty cron list, an empty <cronentries> and App Engine's application key as no jobs", () => {
    expect(parseCronYaml('', 'cron.yaml').jobs).toEqual([]);
    expect(parseCronYaml('# nothing yet\n', 'cron.yaml').jobs).toEqual([]);
    expect(parseCronYaml('cron:\n', 'cron.yaml').jobs).toEqual([]);
    expect(parseCronYaml('application: my-app\ncron: []\n', 'cron.yaml').jobs).toEqual([]);
    expect(parseCronXml('<cronentries/>', 'cron.xml').jobs).toEqual([]);
  });

  it('keeps scalars as written: a YAML number or date-like schedule is text', () => {
    const config = parseCronYaml(
      'cron:\n- url: /a\n  schedule: 0 0 1 1 *\n  retry_parameters:\n    job_retry_limit: 05\n',
      'cron.yaml',
    );
    expect(config.jobs[0]).toMatchObject({ schedule: '0 0 1 1 *', retry: { jobRetryLimit: 5 } });
  });
});

describe('cron.yaml and cron.xml: refusals name the file, the job and the key', () => {
  const job = (lines: string): string => `cron:\n- url: /a\n  schedule: every 5 minutes\n${lines}`;

  it.each([
    ['cron:\n- schedule: every 5 minutes\n', 'cron.yaml: job #1: url is required'],
    ['cron:\n- url: /a\n', 'cron.yaml: job #1: schedule is required'],
    ['cron:\n- url: /a\n  schedule: ""\n', 'cron.yaml: job #1: schedule is required'],
    [
      'cron:\n- url: tasks/a\n  schedule: every 5 minutes\n',
      'cron.yaml: job #1: url must be a path of the app starting with /',
    ],
    [
      'cron:\n- url: /a b\n  schedule: every 5 minutes\n',
      'cron.yaml: job #1: url must be a path of the app starting with /',
    ],
    [
      'cron:\n- url: /a\n  schedule: every 5 minuets\n',
      'cron.yaml: job #1: schedule "every 5 minuets": stopped at column 9 ("minuets"): expected "minutes" or "mins" or "hours"',
    ],
    [
      'cron:\n- name: digest\n  url: /a\n  schedule: every mon 25:00\n',
      'cron.yaml: job "digest": schedule "every mon 25:00": stopped at column 11 ("25:00"): expected "of" or a time (HH:MM)',
    ],
    [job('  timezone: Mars/Base\n'), 'cron.yaml: job #1: unknown time zone "Mars/Base"'],
    [job('  name: a b\n'), 'cron.yaml: job #1: name must be 1 to 100 letters, digits, _ or -, got "a b"'],
    [job('  queue: my_queue\n'), 'cron.yaml: job #1: queue must be a queue name'],
    [job('  target: two words\n'), 'cron.yaml: job #1: target must be a service or version name'],
    [job(`  description: ${'d'.repeat(500)}\n`), 'cron.yaml: job #1: description is longer than 499 characters'],
    [job('  schedual: every day 10:00\n'), 'cron.yaml: job #1: unknown key schedual in job #1'],
    [
      job('  retry_parameters:\n    job_retry_limt: 2\n'),
      'cron.yaml: job #1: unknown key job_retry_limt in retry_parameters',
    ],
    [
      job('  retry_parameters:\n    job_retry_limit: 6\n'),
      'cron.yaml: job #1: job_retry_limit must be an integer from 0 to 5, got "6"',
    ],
    [job('  retry_parameters:\n    job_retry_limit: -1\n'), 'job_retry_limit must be an integer from 0 to 5, got "-1"'],
    [job('  retry_parameters:\n    job_age_limit: 2w\n'), 'job_age_limit must be a duration such as "2d"'],
    [job('  retry_parameters:\n    job_age_limit: 0s\n'), 'job_age_limit must be more than zero'],
    [
      job('  retry_parameters:\n    min_backoff_seconds: fast\n'),
      'min_backoff_seconds must be a non-negative number of seconds, got "fast"',
    ],
    [
      job('  retry_parameters:\n    min_backoff_seconds: 10\n    max_backoff_seconds: 5\n'),
      'min_backoff_seconds (10) is more than max_backoff_seconds (5)',
    ],
    [job('  retry_parameters:\n    max_doublings: 1.5\n'), 'max_doublings must be a non-negative integer, got "1.5"'],
    [job('  retry_parameters: 3\n'), 'unexpected text "3" in retry_parameters'],
    [job('  url: /b\n'), 'cron.yaml: line 4, column 3: malformed YAML'],
    ['cron:\n- url: /a\n  schedule: [every, day]\n', 'cron.yaml: job #1: schedule must be a single value, not a list'],
    ['cron: every day\n', 'cron.yaml: cron must be a list of jobs'],
    ['cron:\n- every day 10:00\n', 'cron.yaml: job #1: each entry of cron must be a mapping with url and schedule'],
    ['- url: /a\n', 'cron.yaml: the top level must be a mapping with a cron list'],
    ['crons:\n- url: /a\n', 'cron.yaml: unknown key crons in the top level'],
    [
      'cron:\n- name: a\n  url: /a\n  schedule: every 5 minutes\n- name: a\n  url: /b\n  schedule: every 5 minutes\n',
      'cron.yaml: job "a": jobs #1 and #2 have the same name',
    ],
    [
      'cron:\n- url: /a\n  schedule: every 5 minutes\n- url: /a\n  schedule: every 5 minutes\n',
      'jobs #1 and #2 have the same name; give one of them a name',
    ],
  ])('%j', (text, message) => {
    expect(catchConfigError(() => parseCronYaml(text, 'cron.yaml')).message).toContain(message);
  });

  it('refuses more jobs than App Engine allows', () => {
    const jobs = Array.from(
      { length: MAX_CRON_JOBS + 1 },
      (_, i) => `- url: /job/${i}\n  schedule: every 5 minutes\n`,
    ).join('');
    expect(catchConfigError(() => parseCronYaml(`cron:\n${jobs}`, 'cron.yaml')).message).toBe(
      `cron.yaml: ${MAX_CRON_JOBS + 1} jobs, more than the limit of ${MAX_CRON_JOBS}`,
    );
  });

  it('carries the file, job and element in the error details', () => {
    const error = catchConfigError(() =>
      parseCronYaml('cron:\n- name: digest\n  url: /a\n  schedule: every 5 minuets\n', 'cron.yaml'),
    );
    expect(error.details).toMatchObject({ file: 'cron.yaml', job: 'digest', element: 'schedule' });
  });

  it.each([
    ['', 'cron.xml: the file is empty; expected a <cronentries> document'],
    ['<queue-entries/>', 'cron.xml: the root element must be <cronentries>, got <queue-entries>'],
    ['<cronentries><cron><url>/a</url></cron></cronentries>', 'cron.xml: job #1: <schedule> is required'],
    [
      '<cronentries><cron><name>x</name><url>/a</url><schedule>every 5 minuets</schedule></cron></cronentries>',
      'cron.xml: job "x": schedule "every 5 minuets": stopped at column 9 ("minuets")',
    ],
    [
      '<cronentries><cron><url>/a</url><schedule>every 5 mins</schedule><schedule>every 6 mins</schedule></cron></cronentries>',
      '<schedule> appears more than once in job #1',
    ],
    [
      '<cronentries><cron><url>/a</url><schedule>every 5 mins</schedule><retry-parameters><job_retry_limit>1</job_retry_limit></retry-parameters></cron></cronentries>',
      'unknown element <job_retry_limit> in <retry-parameters>',
    ],
    ['<cronentries><cron id="1"><url>/a</url></cron></cronentries>', 'attributes are not allowed in cron.xml'],
    ['<!DOCTYPE x [<!ENTITY a "b">]><cronentries/>', 'DOCTYPE and ENTITY declarations are not allowed in cron.xml'],
    ['<cronentries><cron>', 'cron.xml: line 1'],
  ])('%j', (text, message) => {
    expect(catchConfigError(() => parseCronXml(text, 'cron.xml')).message).toContain(message);
  });
});
