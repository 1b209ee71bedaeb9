import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseQueueYaml } from '../../src/config/parse-queue-yaml.js';
import { DEFAULT_LEASE_RATE, DEFAULT_RETRY_PARAMETERS, defaultQueueConfig } from '../../src/core/queue-config.js';
import { catchConfigError } from './catch-config-error.js';

const fixture = (name: string): string => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');

describe('parseQueueYaml: valid files', () => {
  it('reads every key of a full queue.yaml', () => {
    const config = parseQueueYaml(fixture('full-queue.yaml'), 'conf/queue.yaml');
    expect(config.source).toBe('conf/queue.yaml');
    expect(config.totalStorageLimitBytes).toBe(120 * 1024 ** 2);
    expect(config.adminEmails).toEqual(['admin@example.com', 'ops@example.com']);
    expect(config.queues.map((queue) => queue.name)).toEqual([
      'default',
      'pull-queue',
      'push-queue',
      'unlimited-pull',
      'single-acl',
    ]);
    expect(config.queues[1]).toEqual({
      name: 'pull-queue',
      mode: 'pull',
      maxLeases: 7,
      storageLimitBytes: 1.5 * 1024 ** 3,
      leaseRate: { calls: 600, windowSeconds: 60 },
      retry: DEFAULT_RETRY_PARAMETERS,
      acl: { userEmails: ['worker@example.com', 'worker2@example.com'], writerEmails: ['producer@example.com'] },
    });
  });

  it('accepts the spec example verbatim (what QueueXml.ToYaml() emits)', () => {
    const config = parseQueueYaml(
      `total_storage_limit: 120M
queue:
- name: pull-queue
  mode: pull
  acl:
  - user_email: worker@example.com
  - writer_email: producer@example.com
  retry_parameters:
    task_retry_limit: 7
- name: push-queue
  mode: push
  rate: 5/s
  bucket_size: 10
  max_concurrent_requests: 20
  retry_parameters:
    task_retry_limit: 5
    task_age_limit: 2d
    min_backoff_seconds: 10
    max_backoff_seconds: 200
    max_doublings: 3
`,
      'queue.yaml',
    );
    expect(config.queues.map((queue) => [queue.name, queue.mode, queue.maxLeases])).toEqual([
      ['default', 'push', null],
      ['pull-queue', 'pull', 7],
      ['push-queue', 'push', 5],
    ]);
  });

  it("accepts App Engine's top-level application: (the app id), and only there", () => {
    const config = parseQueueYaml('application: my-app\nqueue:\n- name: jobs\n  rate: 1/s\n', 'queue.yaml');
    expect(config).toEqual(parseQueueYaml('queue:\n- name: jobs\n  rate: 1/s\n', 'queue.yaml'));
    expect(catchConfigError(() => parseQueueYaml('application: [a, b]\nqueue: []\n', 'queue.yaml')).message).toContain(
      'application must be a single value',
    );
    expect(
      catchConfigError(() => parseQueueYaml('queue:\n- name: jobs\n  application: my-app\n', 'queue.yaml')).message,
    ).toContain('application');
  });

  it('accepts an ACL entry holding both user_email and writer_email', () => {
    const config = parseQueueYaml(
      'queue:\n- name: p\n  mode: pull\n  acl:\n  - {user_email: a@example.com, writer_email: a@example.com}\n',
      'queue.yaml',
    );
    expect(config.queues[1]?.acl).toEqual({ userEmails: ['a@example.com'], writerEmails: ['a@example.com'] });
  });

  it('takes scalars as written, not as YAML numbers', () => {
    const config = parseQueueYaml(
      'queue:\n- name: 007\n  mode: pull\n  retry_parameters: {task_retry_limit: 010}\n  storage_limit: 1.50\n',
      'queue.yaml',
    );
    expect(config.queues[1]).toMatchObject({ name: '007', maxLeases: 10, storageLimitBytes: 1 });
  });

  it('treats null and empty values as empty', () => {
    const config = parseQueueYaml(
      'admin_emails:\nqueue:\n- name: p\n  mode: pull\n  acl: ~\n  retry_parameters:\n',
      'queue.yaml',
    );
    expect(config.adminEmails).toEqual([]);
    expect(config.queues[1]).toMatchObject({ maxLeases: null, acl: { userEmails: [], writerEmails: [] } });
    expect(parseQueueYaml('queue:\n', 'queue.yaml').queues).toEqual([defaultQueueConfig()]);
    expect(parseQueueYaml('queue: []\n', 'queue.yaml').queues).toEqual([defaultQueueConfig()]);
  });

  it('resolves anchors and aliases', () => {
    const config = parseQueueYaml(
      `queue:
- name: a
  mode: pull
  acl: &workers
  - user_email: w@example.com
  lease_rate: &rate 5/s
- name: b
  mode: pull
  acl: *workers
  lease_rate: *rate
`,
      'queue.yaml',
    );
    expect(config.queues[2]).toMatchObject({
      name: 'b',
      leaseRate: { calls: 5, windowSeconds: 1 },
      retry: DEFAULT_RETRY_PARAMETERS,
      acl: { userEmails: ['w@example.com'] },
    });
    expect(config.queues[1]?.leaseRate).toEqual(config.queues[2]?.leaseRate);
    expect(config.queues[0]?.leaseRate).toBe(DEFAULT_LEASE_RATE);
  });
});

describe('parseQueueYaml: malformed YAML and wrong shapes', () => {
  it('rejects a syntax error with its line and column', () => {
    const error = catchConfigError(() => parseQueueYaml('queue:\n- name: [a\n', 'queue.yaml'));
    expect(error.message).toMatch(/^queue\.yaml: line \d+, column \d+: malformed YAML: /);
    expect(error.details).toMatchObject({ file: 'queue.yaml', line: expect.any(Number), column: expect.any(Number) });
  });

  it('rejects duplicate keys', () => {
    const error = catchConfigError(() =>
      parseQueueYaml('queue:\n- name: a\n  mode: pull\n  mode: push\n', 'queue.yaml'),
    );
    expect(error.message).toBe('queue.yaml: line 4, column 3: malformed YAML: Map keys must be unique');
  });

  it('rejects several documents in one file', () => {
    const error = catchConfigError(() => parseQueueYaml('queue: []\n---\nqueue: []\n', 'queue.yaml'));
    expect(error.message).toMatch(/^queue\.yaml: line 2, column 1: malformed YAML: Source contains multiple documents/);
  });

  it('rejects unknown tags instead of ignoring them', () => {
    const error = catchConfigError(() => parseQueueYaml('total_storage_limit: !size 1M\n', 'queue.yaml'));
    expect(error.message).toMatch(/^queue\.yaml: line 1, column 22: malformed YAML: Unresolved tag: !size/);
  });

  it.each([[''], ['\n\n'], ['# nothing here\n'], ['~\n']])('rejects an empty file %j', (text) => {
    const error = catchConfigError(() => parseQueueYaml(text, 'queue.yaml'));
    expect(error.message).toBe('queue.yaml: the file is empty; expected a mapping with a queue list');
  });

  it.each([['- name: a\n'], ['just text\n']])('rejects a top level that is not a mapping: %j', (text) => {
    const error = catchConfigError(() => parseQueueYaml(text, 'queue.yaml'));
    expect(error.message).toBe(
      'queue.yaml: the top level must be a mapping (total_storage_limit, admin_emails, queue)',
    );
  });

  it.each([
    ['queue: {name: a}\n', 'queue.yaml: queue must be a list of queues', { element: 'queue' }],
    [
      'queue:\n- a\n',
      'queue.yaml: queue #1: each entry of queue must be a mapping with a name',
      { element: 'queue', queueIndex: 1 },
    ],
    [
      'admin_emails: a@example.com\n',
      'queue.yaml: admin_emails must be a list of e-mail addresses',
      { element: 'admin_emails' },
    ],
    [
      'queue:\n- name: p\n  mode: pull\n  acl: {user_email: a@example.com}\n',
      'queue.yaml: queue "p": acl must be a list of user_email / writer_email entries',
      { element: 'acl', queue: 'p' },
    ],
    [
      'queue:\n- name: p\n  mode: pull\n  acl:\n  - a@example.com\n',
      'queue.yaml: queue "p": each entry of acl must be a user_email or writer_email mapping',
      { element: 'acl', queue: 'p' },
    ],
    [
      'queue:\n- name: p\n  lease_rate: [1/s]\n',
      'queue.yaml: queue "p": lease_rate must be a single value, not a list',
      { element: 'lease_rate', queue: 'p' },
    ],
    ['? [a]\n: b\n', 'queue.yaml: mapping keys must be plain names', {}],
  ])('rejects %j', (text, message, details) => {
    const error = catchConfigError(() => parseQueueYaml(text, 'queue.yaml'));
    expect(error.message).toBe(message);
    expect(error.details).toMatchObject({ file: 'queue.yaml', ...details });
  });

  it('reports an unknown key even when its value is a list', () => {
    const error = catchConfigError(() => parseQueueYaml('queues:\n- name: a\n', 'queue.yaml'));
    expect(error.message).toBe('queue.yaml: unknown key queues in the top level');
  });
});
