import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseQueueXml } from '../../src/config/parse-queue-xml.js';
import { DEFAULT_LEASE_RATE, DEFAULT_RETRY_PARAMETERS, defaultQueueConfig } from '../../src/core/queue-config.js';
import { catchConfigError } from './catch-config-error.js';

const fixture = (name: string): string => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');

describe('parseQueueXml: valid files', () => {
  it('reads every element of a full queue.xml', () => {
    const config = parseQueueXml(fixture('full-queue.xml'), 'conf/queue.xml');
    expect(config).toEqual({
      source: 'conf/queue.xml',
      totalStorageLimitBytes: 120 * 1024 ** 2,
      adminEmails: ['admin@example.com', 'ops@example.com'],
      queues: [
        defaultQueueConfig(),
        {
          name: 'pull-queue',
          mode: 'pull',
          maxLeases: 7,
          storageLimitBytes: 1.5 * 1024 ** 3,
          leaseRate: { calls: 600, windowSeconds: 60 },
          retry: DEFAULT_RETRY_PARAMETERS,
          acl: { userEmails: ['worker@example.com', 'worker2@example.com'], writerEmails: ['producer@example.com'] },
        },
        {
          name: 'push-queue',
          mode: 'push',
          maxLeases: 5,
          storageLimitBytes: null,
          leaseRate: DEFAULT_LEASE_RATE,
          retry: { ageLimitSeconds: 172_800, minBackoffSeconds: 10, maxBackoffSeconds: 200, maxDoublings: 3 },
          acl: { userEmails: [], writerEmails: [] },
          push: { ratePerSecond: 5, bucketSize: 10, maxConcurrentRequests: 20, targetUrl: null, target: 'v1' },
        },
        {
          name: 'unlimited-pull',
          mode: 'pull',
          maxLeases: 0, // task-retry-limit 0: never leased, as in App Engine
          storageLimitBytes: null,
          leaseRate: null,
          retry: DEFAULT_RETRY_PARAMETERS,
          acl: { userEmails: [], writerEmails: [] },
        },
        {
          name: 'single-acl',
          mode: 'pull',
          maxLeases: null,
          storageLimitBytes: null,
          leaseRate: DEFAULT_LEASE_RATE,
          retry: DEFAULT_RETRY_PARAMETERS,
          acl: { userEmails: ['only@example.com'], writerEmails: [] },
        },
      ],
    });
  });

  it('accepts the spec example verbatim', () => {
    const config = parseQueueXml(
      `<?xml version="1.0" encoding="UTF-8"?>
<queue-entries>
  <total-storage-limit>120M</total-storage-limit>
  <queue>
    <name>pull-queue</name>
    <mode>pull</mode>
    <acl>
      <user-email>worker@example.com</user-email>     <!-- can list, get, lease, delete, update tasks -->
      <writer-email>producer@example.com</writer-email> <!-- can insert tasks -->
    </acl>
    <retry-parameters>
      <task-retry-limit>7</task-retry-limit>
    </retry-parameters>
  </queue>
  <queue>
    <name>push-queue</name>
    <rate>5/s</rate>
    <bucket-size>10</bucket-size>
    <max-concurrent-requests>20</max-concurrent-requests>
    <retry-parameters>
      <task-retry-limit>5</task-retry-limit><task-age-limit>2d</task-age-limit>
      <min-backoff-seconds>10</min-backoff-seconds><max-backoff-seconds>200</max-backoff-seconds>
      <max-doublings>3</max-doublings>
    </retry-parameters>
  </queue>
</queue-entries>`,
      'queue.xml',
    );
    expect(config.queues.map((queue) => [queue.name, queue.mode, queue.maxLeases])).toEqual([
      ['default', 'push', null],
      ['pull-queue', 'pull', 7],
      ['push-queue', 'push', 5],
    ]);
    expect(config.queues[1]?.acl).toEqual({
      userEmails: ['worker@example.com'],
      writerEmails: ['producer@example.com'],
    });
  });

  it('trims whitespace, ignores comments and processing instructions, and reads CDATA', () => {
    const config = parseQueueXml(
      `\uFEFF<?xml version="1.0"?>
<!-- <!DOCTYPE inside a comment is harmless -->
<queue-entries>
  <?editor fold?>
  <queue>
    <name>
      jobs
    </name>
    <mode><![CDATA[pull]]></mode>
    <acl><user-email> a@example.com </user-email></acl>
  </queue>
</queue-entries>`,
      'queue.xml',
    );
    expect(config.queues[1]).toMatchObject({ name: 'jobs', mode: 'pull', acl: { userEmails: ['a@example.com'] } });
  });

  it('keeps number-like values as written instead of guessing types', () => {
    const config = parseQueueXml(
      '<queue-entries><queue><name>007</name><mode>pull</mode><retry-parameters><task-retry-limit>007</task-retry-limit></retry-parameters></queue></queue-entries>',
      'queue.xml',
    );
    expect(config.queues[1]).toMatchObject({ name: '007', maxLeases: 7 });
  });

  it('accepts an empty <queue-entries> and empty containers', () => {
    expect(parseQueueXml('<queue-entries/>', 'queue.xml').queues).toEqual([defaultQueueConfig()]);
    const config = parseQueueXml(
      '<queue-entries><queue><name>p</name><mode>pull</mode><acl/><retry-parameters/></queue></queue-entries>',
      'queue.xml',
    );
    expect(config.queues[1]).toMatchObject({ maxLeases: null, acl: { userEmails: [], writerEmails: [] } });
  });
});

describe('parseQueueXml: malformed XML', () => {
  it.each([
    [
      'an unclosed tag',
      '<queue-entries>\n  <queue><name>x</queue>\n</queue-entries>',
      "queue.xml: line 2, column 17: malformed XML: Expected closing tag 'name' (opened in line 2, col 10) instead of closing tag 'queue'.",
      { line: 2, column: 17 },
    ],
    [
      'a truncated file',
      '<queue-entries><queue>',
      'queue.xml: line 1, column 1: malformed XML: Invalid \'[    "queue-entries",    "queue"]\' found.',
      { line: 1, column: 1 },
    ],
    [
      'two root elements',
      '<queue-entries></queue-entries>\n<queue-entries></queue-entries>',
      'queue.xml: line 2, column 15: malformed XML: Multiple possible root nodes found.',
      { line: 2, column: 15 },
    ],
    [
      'a bare ampersand',
      '<queue-entries><queue><name>a & b</name></queue></queue-entries>',
      "queue.xml: line 1, column 31: malformed XML: char '&' is not expected.",
      { line: 1, column: 31 },
    ],
    [
      'text that is not XML',
      'not xml at all',
      "queue.xml: line 1, column 1: malformed XML: char 'n' is not expected.",
      { line: 1 },
    ],
  ])('rejects %s with its line and column', (_title, text, message, position) => {
    const error = catchConfigError(() => parseQueueXml(text, 'queue.xml'));
    expect(error.message).toBe(message);
    expect(error.details).toMatchObject({ file: 'queue.xml', ...position });
  });

  // XMLValidator 5.12.1 misses these when the first root is self-closing; parseQueueXml checks itself.
  it.each([
    ['<queue-entries/><queue-entries/>'],
    ['<queue-entries/>\n<queue-entries></queue-entries>'],
    ['<queue-entries/><queues><queue><name>x</name></queue></queues>'],
  ])('rejects two root elements when the first is self-closing: %j', (text) => {
    const error = catchConfigError(() => parseQueueXml(text, 'queue.xml'));
    expect(error.message).toBe(
      'queue.xml: malformed XML: more than one root element; expected a single <queue-entries>',
    );
  });

  it('rejects text after a self-closing root', () => {
    const error = catchConfigError(() =>
      parseQueueXml('<?xml version="1.0"?><queue-entries/>\ntrailing<!-- c -->', 'queue.xml'),
    );
    expect(error.message).toBe('queue.xml: malformed XML: text "trailing" outside the root element');
  });

  it('accepts comments and processing instructions around a self-closing root', () => {
    const config = parseQueueXml(
      '\uFEFF<?xml version="1.0"?>\n<!-- none yet -->\n<queue-entries/>\n<!-- end -->\n',
      'queue.xml',
    );
    expect(config.queues).toEqual([defaultQueueConfig()]);
  });

  it.each([[''], ['   \n\t'], ['\uFEFF']])('rejects an empty file %j', (text) => {
    const error = catchConfigError(() => parseQueueXml(text, 'queue.xml'));
    expect(error.message).toBe('queue.xml: the file is empty; expected a <queue-entries> document');
  });

  it('rejects a DOCTYPE with an entity before anything expands it', () => {
    const text = `<?xml version="1.0"?>
<!DOCTYPE queue-entries [<!ENTITY name "boom">]>
<queue-entries><queue><name>&name;</name></queue></queue-entries>`;
    const error = catchConfigError(() => parseQueueXml(text, 'queue.xml'));
    expect(error.message).toBe(
      'queue.xml: line 2, column 1: DOCTYPE and ENTITY declarations are not allowed in queue.xml',
    );
    expect(error.details).toMatchObject({ file: 'queue.xml', line: 2, column: 1 });
  });

  it('rejects a DOCTYPE without an internal subset, in any case', () => {
    const error = catchConfigError(() =>
      parseQueueXml('<!doctype queue-entries SYSTEM "q.dtd"><queue-entries/>', 'q.xml'),
    );
    expect(error.message).toBe('q.xml: line 1, column 1: DOCTYPE and ENTITY declarations are not allowed in queue.xml');
  });

  it('rejects entity and character references, which are never expanded', () => {
    for (const reference of ['&amp;', '&#65;', '&#x41;', '&name;']) {
      const error = catchConfigError(() =>
        parseQueueXml(`<queue-entries><queue><name>a${reference}</name></queue></queue-entries>`, 'queue.xml'),
      );
      expect(error.message).toBe(
        `queue.xml: <name> contains the reference "${reference}"; entity and character references are not supported`,
      );
      expect(error.details).toMatchObject({ element: 'name' });
    }
  });

  it('rejects a root other than <queue-entries>', () => {
    const error = catchConfigError(() => parseQueueXml('<queues><queue><name>a</name></queue></queues>', 'queue.xml'));
    expect(error.message).toBe('queue.xml: the root element must be <queue-entries>, got <queues>');
    expect(error.details).toMatchObject({ file: 'queue.xml', element: 'queues' });
  });

  it('rejects attributes, which queue.xml never uses', () => {
    const error = catchConfigError(() =>
      parseQueueXml('<queue-entries><queue name="jobs"><name>jobs</name></queue></queue-entries>', 'queue.xml'),
    );
    expect(error.message).toBe('queue.xml: attributes are not allowed in queue.xml, found name="..." on <queue>');
    expect(error.details).toMatchObject({ element: 'queue' });
  });
});
