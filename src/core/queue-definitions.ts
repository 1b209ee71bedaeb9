import { createHash } from 'node:crypto';
import { builtInCronQueue, CRON_QUEUE_NAME } from './cron/built-in-cron-queue.js';
import type { QueueConfig, ServiceConfig } from './queue-config.js';

/**
 * The queue definitions every process sharing a database serves: what one
 * owner wrote (`queue_definitions`, sql/0018). A process with no
 * configuration serves them as they are; one with a configuration either
 * owns them (and writes its own) or must agree with them.
 */

/** How a process opening the service treats the definitions in the database. */
export type DefinitionsRole =
  /** No configuration: serve the database's definitions, write nothing (a fresh database gets the given one). */
  | 'use'
  /** A configuration that must agree with the database's, queue by queue; written only to a fresh database. */
  | 'check'
  /** The owner (taskqueue serve, config sync, ownQueues): its configuration is written when it differs. */
  | 'own';

/** The newest write of the definitions. */
export interface DefinitionsRevision {
  readonly revision: number;
  readonly fingerprint: string;
  readonly source: string;
  readonly writtenAt: Date;
}

/** A queue as the database keeps it: the configuration without a process's own base URL. */
export function storedQueue(queue: QueueConfig): QueueConfig {
  if (queue.push === undefined) return queue;
  const { baseUrl: _ignored, ...push } = queue.push;
  return { ...queue, push };
}

/**
 * sha256 of the definitions in a canonical form: queues by name, keys
 * sorted, base URLs and the built-in cron queue left out (every process with
 * a cron file adds it; two owners that differ only by having a cron file
 * must not read as two configurations).
 */
export function definitionsFingerprint(config: ServiceConfig): string {
  const queues = config.queues
    .filter((queue) => !isBuiltInCronQueue(queue))
    .map(storedQueue)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const canonical = canonicalJson({
    totalStorageLimitBytes: config.totalStorageLimitBytes,
    adminEmails: [...config.adminEmails].sort(),
    queues,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * How `own` disagrees with the database's definitions (`stored`), one line
 * per queue that differs, naming what differs. Only the queues `own` names
 * count: a process may know fewer queues than the owner (a producer with no
 * cron file does not define `cron`), it still serves the database's.
 * `partial` names the queues whose stored row predates sql/0018 (no retry
 * parameters or ACL kept): only their columns are compared.
 */
export function definitionDifferences(
  own: ServiceConfig,
  stored: ServiceConfig,
  partial: ReadonlySet<string> = new Set(),
): string[] {
  const differences: string[] = [];
  const byName = new Map(stored.queues.map((queue) => [queue.name, queue]));
  for (const queue of own.queues) {
    const theirs = byName.get(queue.name);
    if (theirs === undefined) {
      differences.push(`"${queue.name}" is not defined in the database`);
      continue;
    }
    const fields = changedFields(storedQueue(queue), storedQueue(theirs), partial.has(queue.name));
    if (fields.length > 0) differences.push(`"${queue.name}" differs in ${fields.join(', ')}`);
  }
  if (own.totalStorageLimitBytes !== stored.totalStorageLimitBytes) {
    differences.push(
      `the total storage limit differs (${String(own.totalStorageLimitBytes)} here, ${String(stored.totalStorageLimitBytes)} in the database)`,
    );
  }
  return differences;
}

const COMPARED: readonly (keyof QueueConfig)[] = [
  'mode',
  'maxLeases',
  'storageLimitBytes',
  'leaseRate',
  'push',
  'retry',
  'acl',
];
const COLUMNS_ONLY: ReadonlySet<keyof QueueConfig> = new Set([
  'mode',
  'maxLeases',
  'storageLimitBytes',
  'leaseRate',
  'push',
]);

/** The fields of two definitions of one queue that differ, as the file names them loosely (`push` covers rate, bucket, target). */
function changedFields(a: QueueConfig, b: QueueConfig, columnsOnly: boolean): string[] {
  const names: Record<string, string> = {
    mode: 'mode',
    maxLeases: 'retry limit',
    storageLimitBytes: 'storage limit',
    leaseRate: 'lease rate',
    push: 'push settings (rate, bucket size, max concurrent requests, target)',
    retry: 'retry parameters',
    acl: 'acl',
  };
  return COMPARED.filter(
    (field) =>
      (!columnsOnly || COLUMNS_ONLY.has(field)) && canonicalJson(a[field] ?? null) !== canonicalJson(b[field] ?? null),
  ).map((field) => names[field]!);
}

/** Whether two definitions of a queue say the same (base URLs aside). */
export function sameDefinition(a: QueueConfig, b: QueueConfig): boolean {
  return canonicalJson(storedQueue(a)) === canonicalJson(storedQueue(b));
}

/** The built-in cron queue as a process adds it for its cron file, not a queue its file defines. */
export function isBuiltInCronQueue(queue: QueueConfig): boolean {
  return queue.name === CRON_QUEUE_NAME && sameDefinition(queue, builtInCronQueue());
}

/** JSON with object keys sorted, so equal definitions read the same whatever order built them. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>)
            .filter(([, x]) => x !== undefined)
            .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)),
        )
      : v,
  );
}
