/** Rules that concern the file as a whole: the `default` queue and the active-queue limit. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ACTIVE_QUEUES } from '../../src/config/build-service-config.js';
import { parseQueueXml } from '../../src/config/parse-queue-xml.js';
import { parseQueueYaml } from '../../src/config/parse-queue-yaml.js';
import { DEFAULT_LEASE_RATE, DEFAULT_RETRY_PARAMETERS, defaultQueueConfig } from '../../src/core/queue-config.js';
import { catchConfigError } from './catch-config-error.js';

function xmlWithQueues(names: readonly string[]): string {
  return `<queue-entries>${names.map((name) => `<queue><name>${name}</name><mode>pull</mode></queue>`).join('')}</queue-entries>`;
}

function yamlWithQueues(names: readonly string[]): string {
  return `queue:\n${names.map((name) => `- name: ${name}\n  mode: pull\n`).join('')}`;
}

const numbered = (count: number): string[] => Array.from({ length: count }, (_, index) => `q-${index + 1}`);

describe('the default queue', () => {
  it('is added first when the file does not define it', () => {
    const config = parseQueueXml(xmlWithQueues(['b', 'a']), 'queue.xml');
    expect(config.queues.map((queue) => queue.name)).toEqual(['default', 'b', 'a']);
    expect(config.queues[0]).toEqual(defaultQueueConfig());
  });

  it('is the only queue of a file without queues', () => {
    expect(
      parseQueueXml('<queue-entries><total-storage-limit>1G</total-storage-limit></queue-entries>', 'queue.xml'),
    ).toEqual({
      source: 'queue.xml',
      totalStorageLimitBytes: 1024 ** 3,
      adminEmails: [],
      queues: [defaultQueueConfig()],
    });
  });

  it("uses the file's definition, in file order, when the file defines it", () => {
    const config = parseQueueXml(
      `<queue-entries>
        <queue><name>jobs</name><mode>pull</mode></queue>
        <queue>
          <name>default</name>
          <rate>1/s</rate>
          <retry-parameters><task-retry-limit>3</task-retry-limit></retry-parameters>
          <storage-limit>10M</storage-limit>
          <lease-rate>2/s</lease-rate>
        </queue>
      </queue-entries>`,
      'queue.xml',
    );
    expect(config.queues.map((queue) => queue.name)).toEqual(['jobs', 'default']);
    expect(config.queues[1]).toEqual({
      name: 'default',
      mode: 'push',
      maxLeases: 3,
      storageLimitBytes: 10 * 1024 ** 2,
      leaseRate: { calls: 2, windowSeconds: 1 },
      retry: DEFAULT_RETRY_PARAMETERS,
      acl: { userEmails: [], writerEmails: [] },
      push: { ratePerSecond: 1, bucketSize: 5, maxConcurrentRequests: null, targetUrl: null, target: null },
    });
  });

  it('may be defined as a pull queue with an ACL', () => {
    const config = parseQueueYaml(
      'queue:\n- name: default\n  mode: pull\n  acl:\n  - user_email: w@example.com\n',
      'queue.yaml',
    );
    expect(config.queues).toEqual([
      {
        name: 'default',
        mode: 'pull',
        maxLeases: null,
        storageLimitBytes: null,
        leaseRate: DEFAULT_LEASE_RATE,
        retry: DEFAULT_RETRY_PARAMETERS,
        acl: { userEmails: ['w@example.com'], writerEmails: [] },
      },
    ]);
  });

  it('cannot be defined twice', () => {
    const error = catchConfigError(() => parseQueueXml(xmlWithQueues(['default', 'default']), 'queue.xml'));
    expect(error.message).toBe('queue.xml: queue "default": <name> "default" is already used by an earlier queue');
  });
});

describe('the active-queue limit', () => {
  it('is 100 by default', () => {
    expect(DEFAULT_MAX_ACTIVE_QUEUES).toBe(100);
  });

  it('allows exactly 100 queues besides default', () => {
    expect(parseQueueXml(xmlWithQueues(numbered(100)), 'queue.xml').queues).toHaveLength(101);
    expect(parseQueueYaml(yamlWithQueues(numbered(100)), 'queue.yaml').queues).toHaveLength(101);
  });

  it('does not count an explicitly defined default queue', () => {
    const names = [...numbered(50), 'default', ...numbered(100).slice(50)];
    expect(parseQueueXml(xmlWithQueues(names), 'queue.xml').queues).toHaveLength(101);
  });

  it('rejects 101 queues besides default, naming the file and the element', () => {
    const xmlError = catchConfigError(() => parseQueueXml(xmlWithQueues(numbered(101)), 'queue.xml'));
    expect(xmlError.message).toBe(
      'queue.xml: 101 queues are defined besides "default", more than the limit of 100 active queues',
    );
    expect(xmlError.details).toEqual({ file: 'queue.xml', element: 'queue' });

    const yamlError = catchConfigError(() => parseQueueYaml(yamlWithQueues(numbered(101)), 'queue.yaml'));
    expect(yamlError.message).toBe(
      'queue.yaml: 101 queues are defined besides "default", more than the limit of 100 active queues',
    );
  });

  it('follows the maxActiveQueues option', () => {
    expect(parseQueueXml(xmlWithQueues(numbered(2)), 'queue.xml', { maxActiveQueues: 2 }).queues).toHaveLength(3);
    const error = catchConfigError(() =>
      parseQueueXml(xmlWithQueues(numbered(3)), 'queue.xml', { maxActiveQueues: 2 }),
    );
    expect(error.message).toBe(
      'queue.xml: 3 queues are defined besides "default", more than the limit of 2 active queues',
    );
    expect(parseQueueXml(xmlWithQueues(numbered(150)), 'queue.xml', { maxActiveQueues: 200 }).queues).toHaveLength(151);
  });

  it('with a limit of 0 allows only the default queue', () => {
    expect(parseQueueXml(xmlWithQueues(['default']), 'queue.xml', { maxActiveQueues: 0 }).queues).toHaveLength(1);
    catchConfigError(() => parseQueueXml(xmlWithQueues(['a']), 'queue.xml', { maxActiveQueues: 0 }));
  });

  it.each([[-1], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    'rejects a maxActiveQueues option of %d',
    (value) => {
      const error = catchConfigError(() => parseQueueXml('<queue-entries/>', 'queue.xml', { maxActiveQueues: value }));
      expect(error.message).toBe(`queue.xml: the maxActiveQueues option must be a non-negative integer, got ${value}`);
    },
  );
});
