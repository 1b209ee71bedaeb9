/**
 * Property: any configuration written as queue.xml and as queue.yaml reads
 * back as the same ServiceConfig, equal to the model it was written from.
 * This is what "one set of rules for both formats" means in practice.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQueueXml } from '../../src/config/parse-queue-xml.js';
import { parseQueueYaml } from '../../src/config/parse-queue-yaml.js';
import {
  DEFAULT_LEASE_RATE,
  DEFAULT_PUSH_SETTINGS,
  DEFAULT_RETRY_PARAMETERS,
  defaultQueueConfig,
  type QueueConfig,
  type ServiceConfig,
} from '../../src/core/queue-config.js';

interface QueueSpec {
  readonly name: string;
  readonly mode: 'pull' | 'push' | undefined;
  readonly retryLimit: number | undefined;
  readonly storageLimit: readonly [number, 'K' | 'M' | ''] | undefined;
  readonly leaseRate: readonly [number, 's' | 'm' | 'h' | 'd'] | 'unlimited' | undefined;
  readonly userEmails: readonly string[];
  readonly writerEmails: readonly string[];
  readonly quoteInYaml: boolean;
}

const email = fc
  .tuple(fc.stringMatching(/^[a-z0-9.+_-]{1,10}$/), fc.stringMatching(/^[a-z0-9-]{1,10}\.[a-z]{2,4}$/))
  .map(([local, domain]) => `${local}@${domain}`);

const queueSpec: fc.Arbitrary<QueueSpec> = fc.record({
  name: fc.stringMatching(/^[a-zA-Z0-9-]{1,30}$/).filter((name) => !/^(null|~)$/i.test(name)),
  mode: fc.constantFrom('pull' as const, 'push' as const, undefined),
  retryLimit: fc.option(fc.nat({ max: 1000 }), { nil: undefined }),
  storageLimit: fc.option(fc.tuple(fc.nat({ max: 5000 }), fc.constantFrom('K' as const, 'M' as const, '' as const)), {
    nil: undefined,
  }),
  leaseRate: fc.option(
    fc.oneof(
      fc.tuple(
        fc.integer({ min: 1, max: 10_000 }),
        fc.constantFrom('s' as const, 'm' as const, 'h' as const, 'd' as const),
      ),
      fc.constant('unlimited' as const),
    ),
    { nil: undefined },
  ),
  userEmails: fc.array(email, { maxLength: 3 }),
  writerEmails: fc.array(email, { maxLength: 3 }),
  quoteInYaml: fc.boolean(),
});

const serviceSpec = fc.record({
  totalStorageLimit: fc.option(fc.nat({ max: 900 }), { nil: undefined }),
  adminEmails: fc.array(email, { maxLength: 3 }),
  queues: fc.uniqueArray(queueSpec, { selector: (queue) => queue.name, maxLength: 8 }),
});
type ServiceSpec = typeof serviceSpec extends fc.Arbitrary<infer T> ? T : never;

const isPull = (queue: QueueSpec): boolean => queue.mode === 'pull';
const rateText = (rate: NonNullable<QueueSpec['leaseRate']>): string =>
  rate === 'unlimited' ? rate : `${rate[0]}/${rate[1]}`;

function toXml(spec: ServiceSpec): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<queue-entries>'];
  if (spec.totalStorageLimit !== undefined)
    lines.push(`  <total-storage-limit>${spec.totalStorageLimit}G</total-storage-limit>`);
  for (const admin of spec.adminEmails) lines.push(`  <admin-email>${admin}</admin-email>`);
  for (const queue of spec.queues) {
    lines.push('  <queue>', `    <name>${queue.name}</name>`);
    if (queue.mode !== undefined) lines.push(`    <mode>${queue.mode}</mode>`);
    if (isPull(queue)) {
      lines.push('    <acl>');
      for (const user of queue.userEmails) lines.push(`      <user-email>${user}</user-email>`);
      for (const writer of queue.writerEmails) lines.push(`      <writer-email>${writer}</writer-email>`);
      lines.push('    </acl>');
    } else {
      lines.push('    <rate>5/s</rate>');
    }
    if (queue.retryLimit !== undefined) {
      lines.push(`    <retry-parameters><task-retry-limit>${queue.retryLimit}</task-retry-limit></retry-parameters>`);
    }
    if (queue.storageLimit !== undefined)
      lines.push(`    <storage-limit>${queue.storageLimit.join('')}</storage-limit>`);
    if (queue.leaseRate !== undefined) lines.push(`    <lease-rate>${rateText(queue.leaseRate)}</lease-rate>`);
    lines.push('  </queue>');
  }
  lines.push('</queue-entries>');
  return lines.join('\n');
}

function toYaml(spec: ServiceSpec): string {
  const lines: string[] = [];
  if (spec.totalStorageLimit !== undefined) lines.push(`total_storage_limit: ${spec.totalStorageLimit}G`);
  if (spec.adminEmails.length > 0) lines.push('admin_emails:', ...spec.adminEmails.map((admin) => `- ${admin}`));
  lines.push('queue:');
  for (const queue of spec.queues) {
    // Plain where YAML allows it (so plain numbers like `0x1F` or `1e3` are exercised), quoted otherwise.
    const value = (text: string): string => (queue.quoteInYaml || /^[-?:]/.test(text) ? JSON.stringify(text) : text);
    lines.push(`- name: ${value(queue.name)}`);
    if (queue.mode !== undefined) lines.push(`  mode: ${value(queue.mode)}`);
    if (isPull(queue)) {
      lines.push('  acl:');
      for (const user of queue.userEmails) lines.push(`  - user_email: ${value(user)}`);
      for (const writer of queue.writerEmails) lines.push(`  - writer_email: ${value(writer)}`);
    } else {
      lines.push('  rate: 5/s');
    }
    if (queue.retryLimit !== undefined)
      lines.push('  retry_parameters:', `    task_retry_limit: ${value(String(queue.retryLimit))}`);
    if (queue.storageLimit !== undefined) lines.push(`  storage_limit: ${value(queue.storageLimit.join(''))}`);
    if (queue.leaseRate !== undefined) lines.push(`  lease_rate: ${value(rateText(queue.leaseRate))}`);
  }
  return lines.join('\n') + '\n';
}

function expected(spec: ServiceSpec): ServiceConfig {
  const unit = { K: 1024, M: 1024 ** 2, '': 1 } as const;
  const queues: QueueConfig[] = spec.queues.map((queue) => ({
    name: queue.name,
    mode: queue.mode ?? 'push',
    maxLeases: queue.retryLimit ?? null,
    storageLimitBytes: queue.storageLimit === undefined ? null : queue.storageLimit[0] * unit[queue.storageLimit[1]],
    leaseRate:
      queue.leaseRate === undefined
        ? DEFAULT_LEASE_RATE
        : queue.leaseRate === 'unlimited'
          ? null
          : { calls: queue.leaseRate[0], windowSeconds: { s: 1, m: 60, h: 3600, d: 86400 }[queue.leaseRate[1]] },
    retry: DEFAULT_RETRY_PARAMETERS,
    acl: isPull(queue)
      ? { userEmails: [...queue.userEmails], writerEmails: [...queue.writerEmails] }
      : { userEmails: [], writerEmails: [] },
    ...(isPull(queue) ? {} : { push: DEFAULT_PUSH_SETTINGS }),
  }));
  if (!queues.some((queue) => queue.name === 'default')) queues.unshift(defaultQueueConfig());
  return {
    source: 'generated',
    totalStorageLimitBytes: spec.totalStorageLimit === undefined ? null : spec.totalStorageLimit * 1024 ** 3,
    adminEmails: [...spec.adminEmails],
    queues,
  };
}

describe('queue.xml and queue.yaml', () => {
  it('read back as the same configuration', () => {
    fc.assert(
      fc.property(serviceSpec, (spec) => {
        const want = expected(spec);
        expect(parseQueueXml(toXml(spec), 'generated')).toEqual(want);
        expect(parseQueueYaml(toYaml(spec), 'generated')).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});
