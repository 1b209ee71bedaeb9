/** `<retry-parameters>` besides the retry limit: backoff on every queue, the age limit on push queues. */
import { describe, expect, it } from 'vitest';
import { parseQueueXml } from '../../src/config/parse-queue-xml.js';
import { parseQueueYaml } from '../../src/config/parse-queue-yaml.js';
import { DEFAULT_RETRY_PARAMETERS, type QueueConfig } from '../../src/core/queue-config.js';
import { catchConfigError } from './catch-config-error.js';

function xmlQueue(body: string): string {
  return `<queue-entries><queue><name>jobs</name>${body}</queue></queue-entries>`;
}

function jobs(queues: readonly QueueConfig[]): QueueConfig {
  const queue = queues.find((candidate) => candidate.name === 'jobs');
  if (queue === undefined) throw new Error('no queue "jobs"');
  return queue;
}

describe('retry parameters', () => {
  it("default to App Engine's 0.1 s, 3600 s and 16 doublings with no age limit", () => {
    const config = parseQueueXml(xmlQueue('<rate>5/s</rate>'), 'queue.xml');
    expect(jobs(config.queues).retry).toEqual({
      ageLimitSeconds: null,
      minBackoffSeconds: 0.1,
      maxBackoffSeconds: 3600,
      maxDoublings: 16,
    });
    expect(DEFAULT_RETRY_PARAMETERS).toEqual(jobs(config.queues).retry);
  });

  it('are read from queue.xml and queue.yaml alike, the age limit in seconds', () => {
    const xml = parseQueueXml(
      xmlQueue(
        '<retry-parameters><task-retry-limit>5</task-retry-limit><task-age-limit>1.5h</task-age-limit>' +
          '<min-backoff-seconds>10</min-backoff-seconds><max-backoff-seconds>300</max-backoff-seconds>' +
          '<max-doublings>3</max-doublings></retry-parameters>',
      ),
      'queue.xml',
    );
    const yaml = parseQueueYaml(
      [
        'queue:',
        '- name: jobs',
        '  retry_parameters:',
        '    task_retry_limit: 5',
        '    task_age_limit: 1.5h',
        '    min_backoff_seconds: 10',
        '    max_backoff_seconds: 300',
        '    max_doublings: 3',
      ].join('\n'),
      'queue.yaml',
    );
    const expected = { ageLimitSeconds: 5400, minBackoffSeconds: 10, maxBackoffSeconds: 300, maxDoublings: 3 };
    expect(jobs(xml.queues).retry).toEqual(expected);
    expect(jobs(yaml.queues).retry).toEqual(expected);
    expect(jobs(xml.queues).maxLeases).toBe(5);
  });

  it('reads every age unit', () => {
    for (const [text, seconds] of [
      ['30s', 30],
      ['2m', 120],
      ['3h', 10_800],
      ['2d', 172_800],
    ] as const) {
      const config = parseQueueXml(
        xmlQueue(`<retry-parameters><task-age-limit>${text}</task-age-limit></retry-parameters>`),
        'queue.xml',
      );
      expect(jobs(config.queues).retry.ageLimitSeconds).toBe(seconds);
    }
  });

  it('accept the backoff elements on a pull queue (a failed worker task waits them out)', () => {
    const config = parseQueueXml(
      xmlQueue(
        '<mode>pull</mode><retry-parameters><min-backoff-seconds>2</min-backoff-seconds>' +
          '<max-backoff-seconds>60</max-backoff-seconds><max-doublings>4</max-doublings></retry-parameters>',
      ),
      'queue.xml',
    );
    expect(jobs(config.queues).retry).toEqual({
      ageLimitSeconds: null,
      minBackoffSeconds: 2,
      maxBackoffSeconds: 60,
      maxDoublings: 4,
    });
  });

  it('refuse a task age on a pull queue', () => {
    const error = catchConfigError(() =>
      parseQueueXml(
        xmlQueue('<mode>pull</mode><retry-parameters><task-age-limit>2d</task-age-limit></retry-parameters>'),
        'queue.xml',
      ),
    );
    expect(error.message).toBe(
      'queue.xml: queue "jobs": <task-age-limit> is not allowed in a pull queue (only push queues have a task age)',
    );
  });

  it('refuse a minimum above the maximum, naming both', () => {
    const error = catchConfigError(() =>
      parseQueueXml(
        xmlQueue(
          '<retry-parameters><min-backoff-seconds>20</min-backoff-seconds><max-backoff-seconds>10</max-backoff-seconds></retry-parameters>',
        ),
        'queue.xml',
      ),
    );
    expect(error.message).toBe(
      'queue.xml: queue "jobs": <min-backoff-seconds> (20) must not be greater than <max-backoff-seconds> (10)',
    );
  });

  it("let the other bound's default give way when only one is set", () => {
    const onlyMax = parseQueueXml(
      xmlQueue('<retry-parameters><max-backoff-seconds>0.05</max-backoff-seconds></retry-parameters>'),
      'queue.xml',
    );
    expect(jobs(onlyMax.queues).retry).toMatchObject({ minBackoffSeconds: 0.05, maxBackoffSeconds: 0.05 });
    const onlyMin = parseQueueXml(
      xmlQueue('<retry-parameters><min-backoff-seconds>7200</min-backoff-seconds></retry-parameters>'),
      'queue.xml',
    );
    expect(jobs(onlyMin.queues).retry).toMatchObject({ minBackoffSeconds: 7200, maxBackoffSeconds: 7200 });
  });

  it('refuse values out of range with the element and the value', () => {
    const doublings = catchConfigError(() =>
      parseQueueXml(xmlQueue('<retry-parameters><max-doublings>64</max-doublings></retry-parameters>'), 'queue.xml'),
    );
    expect(doublings.message).toBe('queue.xml: queue "jobs": <max-doublings> must be at most 63, got "64"');
    const backoff = catchConfigError(() =>
      parseQueueYaml('queue:\n- name: jobs\n  retry_parameters:\n    max_backoff_seconds: 1e13\n', 'queue.yaml'),
    );
    expect(backoff.message).toContain('max_backoff_seconds must be');
    const age = catchConfigError(() =>
      parseQueueXml(
        xmlQueue('<retry-parameters><task-age-limit>99999999999d</task-age-limit></retry-parameters>'),
        'queue.xml',
      ),
    );
    expect(age.message).toBe(
      'queue.xml: queue "jobs": <task-age-limit> must be at most 1000000000000 seconds, got "99999999999d"',
    );
  });
});
