import { describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import {
  durationFromMillis,
  durationToMillis,
  formatDuration,
  parseDuration,
} from '../../src/cloudtasks/proto-duration.js';
import { formatTimestamp, parseTimestamp } from '../../src/cloudtasks/proto-timestamp.js';
import { parseQueueName, parseTaskName, queueName, taskName } from '../../src/cloudtasks/resource-name.js';

function refusal(run: () => unknown): { message: string; field: unknown } {
  try {
    run();
  } catch (error) {
    if (isQueueError(error, 'INVALID_REQUEST')) return { message: error.message, field: error.details.field };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('proto3 JSON Duration', () => {
  it('reads what gcloud and the Node client send and writes what Google answers', () => {
    expect(parseDuration('3.5s', 'f')).toEqual({ seconds: 3, nanos: 500_000_000 });
    expect(formatDuration(parseDuration('3.5s', 'f'))).toBe('3.500s');
    expect(formatDuration(parseDuration('600s', 'f'))).toBe('600s');
    expect(formatDuration(parseDuration('0.1s', 'f'))).toBe('0.100s');
    expect(formatDuration(parseDuration('0.000001s', 'f'))).toBe('0.000001s');
    expect(formatDuration(parseDuration('1.000000001s', 'f'))).toBe('1.000000001s');
    expect(formatDuration(parseDuration('-1.5s', 'f'))).toBe('-1.500s');
    expect(parseDuration('-0s', 'f')).toEqual({ seconds: 0, nanos: 0 });
  });

  it('converts to and from milliseconds', () => {
    expect(durationToMillis(parseDuration('0.1s', 'f'))).toBe(100);
    expect(formatDuration(durationFromMillis(100))).toBe('0.100s');
    expect(formatDuration(durationFromMillis(3_600_000))).toBe('3600s');
  });

  it('refuses anything else, naming the field', () => {
    for (const bad of ['3.5', '3.5 s', '1.0000000001s', 's', '', 3.5, null, '1e3s', '+1s', '315576000001s']) {
      const { message, field } = refusal(() => parseDuration(bad, 'retryConfig.minBackoff'));
      expect(field).toBe('retryConfig.minBackoff');
      expect(message).toContain("'retryConfig.minBackoff'");
    }
  });
});

describe('proto3 JSON Timestamp', () => {
  it('reads RFC 3339 with Z or an offset and up to nine decimals', () => {
    expect(parseTimestamp('2026-12-02T14:00:00Z', 'f').date.toISOString()).toBe('2026-12-02T14:00:00.000Z');
    expect(parseTimestamp('2026-12-02T15:30:00.25+01:30', 'f').date.toISOString()).toBe('2026-12-02T14:00:00.250Z');
    const fine = parseTimestamp('2026-12-02T14:00:00.123456789Z', 'f');
    expect(fine.date.getUTCMilliseconds()).toBe(123);
    expect(fine.subMillisNanos).toBe(456_789);
    expect(formatTimestamp(fine.date, fine.subMillisNanos)).toBe('2026-12-02T14:00:00.123456789Z');
  });

  it('writes UTC with 0, 3, 6 or 9 decimals', () => {
    expect(formatTimestamp(new Date('2026-12-02T14:00:00Z'))).toBe('2026-12-02T14:00:00Z');
    expect(formatTimestamp(new Date('2026-12-02T14:00:00.5Z'))).toBe('2026-12-02T14:00:00.500Z');
    expect(formatTimestamp(new Date('2026-12-02T14:00:00.5Z'), 1000)).toBe('2026-12-02T14:00:00.500001Z');
    expect(formatTimestamp(new Date(new Date(0).setUTCFullYear(1, 0, 1)))).toBe('0001-01-01T00:00:00Z');
  });

  it('refuses impossible dates, offsets and other forms, naming the field', () => {
    for (const bad of [
      '2026-02-30T00:00:00Z',
      '2026-12-02T24:00:00Z',
      '2026-12-02T14:00:60Z',
      '2026-12-02 14:00:00Z',
      '2026-12-02T14:00:00',
      '2026-12-02T14:00:00+24:00',
      '2026-12-02T14:00:00.1234567890Z',
      '0000-01-01T00:00:00Z',
      1_700_000_000,
    ]) {
      expect(refusal(() => parseTimestamp(bad, 'task.scheduleTime')).field).toBe('task.scheduleTime');
    }
  });
});

describe('Cloud Tasks resource names', () => {
  it('parses and formats queue and task names', () => {
    const task = parseTaskName('projects/my-project/locations/us-central1/queues/emails/tasks/a_b-1');
    expect(task).toEqual({ project: 'my-project', location: 'us-central1', queue: 'emails', task: 'a_b-1' });
    expect(taskName(task)).toBe('projects/my-project/locations/us-central1/queues/emails/tasks/a_b-1');
    expect(queueName(parseQueueName('projects/example.com:p/locations/europe-west1/queues/q'))).toBe(
      'projects/example.com:p/locations/europe-west1/queues/q',
    );
    expect(parseTaskName(`projects/p/locations/l/queues/q/tasks/${'x'.repeat(500)}`).task).toHaveLength(500);
  });

  it('refuses malformed names with the expected form', () => {
    const bad = [
      'projects/p/locations/l/queues/q/tasks/',
      'projects/p/locations/l/queues/q/tasks/a.b',
      `projects/p/locations/l/queues/q/tasks/${'x'.repeat(501)}`,
      'projects/p/locations/l/queues/q_1/tasks/t',
      'projects/p/locations/l/queues/q/tasks/t/extra',
      'projects/P!/locations/l/queues/q/tasks/t',
      'project/p/locations/l/queues/q/tasks/t',
      '/projects/p/locations/l/queues/q/tasks/t',
    ];
    for (const name of bad) {
      expect(refusal(() => parseTaskName(name)).message).toContain(
        'projects/<PROJECT_ID>/locations/<LOCATION_ID>/queues/<QUEUE_ID>/tasks/<TASK_ID>',
      );
    }
    expect(refusal(() => parseQueueName(`projects/p/locations/l/queues/${'q'.repeat(101)}`)).message).toContain(
      '1 to 100',
    );
  });
});
