/** Push-queue delivery settings: rate, bucket size, concurrency, target URL, target. */
import { describe, expect, it } from 'vitest';
import { parseQueueXml } from '../../src/config/parse-queue-xml.js';
import { parseQueueYaml } from '../../src/config/parse-queue-yaml.js';
import { settingsFromEnvironment } from '../../src/config/service-settings.js';
import { builtInConfig } from '../../src/config/load-config.js';
import { DEFAULT_PUSH_SETTINGS, withPushBaseUrl, type QueueConfig } from '../../src/core/queue-config.js';
import { catchConfigError } from './catch-config-error.js';

function xmlQueue(body: string): string {
  return `<queue-entries><queue><name>jobs</name>${body}</queue></queue-entries>`;
}

function jobs(queues: readonly QueueConfig[]): QueueConfig {
  return queues.find((candidate) => candidate.name === 'jobs')!;
}

describe('push queue settings', () => {
  it('read rate (N/s, /m, /h, /d, decimal, 0), bucket size, concurrency, target URL and target from queue.xml and queue.yaml alike', () => {
    const xml = parseQueueXml(
      xmlQueue(
        '<rate>1.5/m</rate><bucket-size>20</bucket-size><max-concurrent-requests>7</max-concurrent-requests>' +
          '<target-url>https://worker.example.com/base</target-url><target>v2.worker</target>',
      ),
      'queue.xml',
    );
    const yaml = parseQueueYaml(
      'queue:\n- name: jobs\n  rate: 1.5/m\n  bucket_size: 20\n  max_concurrent_requests: 7\n  target_url: https://worker.example.com/base\n  target: v2.worker\n',
      'queue.yaml',
    );
    const expected = {
      ratePerSecond: 1.5 / 60,
      bucketSize: 20,
      maxConcurrentRequests: 7,
      targetUrl: 'https://worker.example.com/base',
      target: 'v2.worker',
    };
    expect(jobs(xml.queues).push).toEqual(expected);
    expect(jobs(yaml.queues).push).toEqual(expected);
    const rate = (text: string) =>
      jobs(parseQueueXml(xmlQueue(`<rate>${text}</rate>`), 'queue.xml').queues).push!.ratePerSecond;
    expect([
      rate('0'),
      rate('10/s'),
      rate('60/m'),
      rate('3600/h'),
      rate('86400/d'),
      rate('2.5/s'),
      rate('600/s'),
    ]).toEqual([0, 10, 1, 1, 1, 2.5, 600]);
  });

  it('default to 5/s, bucket 5, unlimited concurrency; the default queue is a push queue with them', () => {
    expect(jobs(parseQueueXml(xmlQueue(''), 'queue.xml').queues).push).toEqual(DEFAULT_PUSH_SETTINGS);
    const defaultQueue = builtInConfig().queues.find((queue) => queue.name === 'default')!;
    expect(defaultQueue.mode).toBe('push');
    expect(defaultQueue.push).toMatchObject({ ratePerSecond: 5, bucketSize: 5, maxConcurrentRequests: null });
    expect(DEFAULT_PUSH_SETTINGS).toEqual({
      ratePerSecond: 5,
      bucketSize: 5,
      maxConcurrentRequests: null,
      targetUrl: null,
      target: null,
    });
  });

  it.each([
    ['<rate>5</rate>', '<rate>'],
    ['<rate>-1/s</rate>', '<rate>'],
    ['<rate>0/s</rate>', '<rate>'],
    ['<rate>2000000/s</rate>', '<rate>'],
    ['<bucket-size>0</bucket-size>', '<bucket-size>'],
    ['<bucket-size>1.5</bucket-size>', '<bucket-size>'],
    ['<max-concurrent-requests>0</max-concurrent-requests>', '<max-concurrent-requests>'],
    ['<target-url>worker.example.com</target-url>', '<target-url>'],
    ['<target-url>ftp://worker.example.com</target-url>', '<target-url>'],
    ['<target-url>https://worker.example.com/?a=1</target-url>', '<target-url>'],
    ['<target-url>https://user:pw@worker.example.com/</target-url>', '<target-url>'],
  ])('refuse %s with an error naming the queue and element', (body, element) => {
    const error = catchConfigError(() => parseQueueXml(xmlQueue(body), 'queue.xml'));
    expect(error.details).toMatchObject({ queue: 'jobs', element: element.slice(1, -1) });
    expect(error.message).toContain(`queue "jobs": ${element}`);
  });

  it('are refused in pull queues', () => {
    const error = catchConfigError(() =>
      parseQueueXml(xmlQueue('<mode>pull</mode><target-url>https://w.example</target-url>'), 'queue.xml'),
    );
    expect(error.message).toContain('<target-url> is not allowed in a pull queue');
  });

  it('TASKQUEUE_PUSH_BASE_URL is the base of queues without <target-url>; a bad one is refused', () => {
    expect(settingsFromEnvironment({ TASKQUEUE_PUSH_BASE_URL: 'http://127.0.0.1:9000' }).pushBaseUrl).toBe(
      'http://127.0.0.1:9000',
    );
    expect(() => settingsFromEnvironment({ TASKQUEUE_PUSH_BASE_URL: 'nope' })).toThrow(
      /TASKQUEUE_PUSH_BASE_URL must be an absolute http\(s\) URL/,
    );
    expect(settingsFromEnvironment({ TASKQUEUE_DISPATCH: 'off', TASKQUEUE_PUSH_SIGNING: 'off' })).toMatchObject({
      dispatch: false,
      pushSigning: false,
    });
    const config = parseQueueXml(
      '<queue-entries><queue><name>a</name></queue><queue><name>b</name><target-url>https://b.example</target-url></queue></queue-entries>',
      'queue.xml',
    );
    const resolved = withPushBaseUrl(config, 'https://base.example');
    expect(resolved.queues.map((queue) => queue.push?.baseUrl)).toEqual([
      'https://base.example',
      'https://base.example',
      'https://b.example',
    ]);
  });
});
