import {
  DEFAULT_LEASE_RATE,
  DEFAULT_RETRY_PARAMETERS,
  DEFAULT_QUEUE_NAME,
  QUEUE_NAME_PATTERN,
  defaultQueueConfig,
  type LeaseRate,
  type QueueConfig,
  type QueueMode,
  type RetryParameters,
  type ServiceConfig,
} from '../core/queue-config.js';
import type { ConfigNode, ConfigSyntax } from './config-node.js';
import {
  AGE_UNIT_SECONDS,
  NON_NEGATIVE_DECIMAL,
  NON_NEGATIVE_INTEGER,
  checkNoText,
  fail,
  groupChildren,
  leafText,
  withElement,
  type Scope,
} from './element-tree.js';
import { isEmailAddress } from '../core/is-email-address.js';
import { parseLeaseRate } from './parse-lease-rate.js';
import { parseStorageSize } from './parse-storage-size.js';
import { buildPushSettings } from './push-queue-settings.js';

/** Options shared by every configuration reader. */
export interface ConfigOptions {
  /**
   * Most queues a file may define, not counting `default` (App Engine's
   * per-app limit on active queues is 100). Default DEFAULT_MAX_ACTIVE_QUEUES.
   */
  readonly maxActiveQueues?: number;
}

/** App Engine's limit on active queues per application, `default` not counted. */
export const DEFAULT_MAX_ACTIVE_QUEUES = 100;

/**
 * Largest `<task-retry-limit>`: it becomes a task's lease limit, which the
 * store keeps in a PostgreSQL `integer` column.
 */
export const MAX_TASK_RETRY_LIMIT = 2_147_483_647;

const ROOT_ELEMENTS = new Set(['total-storage-limit', 'admin-email', 'queue']);
const ROOT_REPEATABLE = new Set(['admin-email', 'queue']);

/** Push-queue elements the SDK rejects in pull queues. */
const PUSH_ONLY_QUEUE_ELEMENTS = ['rate', 'bucket-size', 'max-concurrent-requests', 'target', 'target-url'] as const;
/**
 * `<retry-parameters>` children the SDK rejects in pull queues. The backoff
 * elements are accepted there (an extension): a worker's failed task waits
 * out the same backoff as a failed push delivery.
 */
const PUSH_ONLY_RETRY_ELEMENTS = ['task-age-limit'] as const;
const BACKOFF_ELEMENTS = ['min-backoff-seconds', 'max-backoff-seconds', 'max-doublings'] as const;
/** Largest `<max-doublings>`: 2^63 already passes any backoff cap. */
export const MAX_DOUBLINGS = 63;
/** Largest backoff or age limit in seconds (about 31,700 years; keeps every sum finite and exact enough). */
const MAX_RETRY_SECONDS = 1e12;

const QUEUE_ELEMENTS = new Set<string>([
  'name',
  'mode',
  ...PUSH_ONLY_QUEUE_ELEMENTS,
  'retry-parameters',
  'acl',
  'storage-limit',
  'lease-rate',
]);
const RETRY_ELEMENTS = new Set<string>(['task-retry-limit', ...PUSH_ONLY_RETRY_ELEMENTS, ...BACKOFF_ELEMENTS]);
const ACL_ELEMENTS = new Set(['user-email', 'writer-email']);
const NOTHING_REPEATABLE = new Set<string>();

/** queueinfo.py `_RATE_REGEX`, anchored. */
const PUSH_RATE = /^(0|[0-9]+(\.[0-9]*)?\/[smhd])$/;
/** queueinfo.py `_TASK_AGE_LIMIT_REGEX`, simplified: a number with an s/m/h/d suffix. */
const TASK_AGE_LIMIT = /^[0-9]+(\.[0-9]*)?[smhd]$/;
const TARGET = /^\S+$/;

/** Pattern checks of push-only values; push-queue-settings.ts then checks their ranges. */
const PUSH_VALUE_RULES: Readonly<Record<string, { readonly pattern: RegExp; readonly expected: string }>> = {
  rate: { pattern: PUSH_RATE, expected: 'a rate such as "5/s"' },
  'bucket-size': { pattern: NON_NEGATIVE_INTEGER, expected: 'a non-negative integer' },
  'max-concurrent-requests': { pattern: NON_NEGATIVE_INTEGER, expected: 'a non-negative integer' },
  target: { pattern: TARGET, expected: 'a version or module name' },
  'task-age-limit': {
    pattern: TASK_AGE_LIMIT,
    expected: 'a duration such as "2d" (a number with an s, m, h or d suffix)',
  },
  'min-backoff-seconds': { pattern: NON_NEGATIVE_DECIMAL, expected: 'a non-negative number of seconds' },
  'max-backoff-seconds': { pattern: NON_NEGATIVE_DECIMAL, expected: 'a non-negative number of seconds' },
  'max-doublings': { pattern: NON_NEGATIVE_INTEGER, expected: 'a non-negative integer' },
};

/**
 * Turns a parsed queue.xml / queue.yaml tree into a validated ServiceConfig.
 * This is the single place that holds the SDK's rules plus our extensions,
 * so that both file formats accept and reject exactly the same things.
 *
 * Throws QueueError INVALID_CONFIG naming the file, queue and element.
 */
export function buildServiceConfig(
  root: ConfigNode,
  syntax: ConfigSyntax,
  source: string,
  options: ConfigOptions = {},
): ServiceConfig {
  const scope: Scope = { syntax, location: { file: source } };
  const maxActiveQueues = checkMaxActiveQueues(scope, options.maxActiveQueues);
  const groups = groupChildren(scope, root, syntax.rootLabel, ROOT_ELEMENTS, ROOT_REPEATABLE);

  const storageNode = groups.get('total-storage-limit')?.[0];
  const totalStorageLimitBytes = storageNode === undefined ? null : storageSize(scope, storageNode);
  const adminEmails = (groups.get('admin-email') ?? []).map((node) => emailAddress(scope, node));

  const queues: QueueConfig[] = [];
  const seen = new Set<string>();
  (groups.get('queue') ?? []).forEach((node, index) => {
    const queue = buildQueue(scope, node, index + 1);
    if (seen.has(queue.name)) {
      const key = syntax.keyFor('name');
      fail(scope, `${syntax.label(key)} "${queue.name}" is already used by an earlier queue`, {
        queue: queue.name,
        element: key,
      });
    }
    seen.add(queue.name);
    queues.push(queue);
  });

  const activeQueues = queues.filter((queue) => queue.name !== DEFAULT_QUEUE_NAME).length;
  if (activeQueues > maxActiveQueues) {
    const key = syntax.keyFor('queue');
    fail(
      scope,
      `${activeQueues} queues are defined besides "${DEFAULT_QUEUE_NAME}", more than the limit of ${maxActiveQueues} active queues`,
      { element: key },
    );
  }
  if (!seen.has(DEFAULT_QUEUE_NAME)) queues.unshift(defaultQueueConfig());

  return { source, totalStorageLimitBytes, adminEmails, queues };
}

function checkMaxActiveQueues(scope: Scope, value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_ACTIVE_QUEUES;
  if (!Number.isSafeInteger(value) || value < 0) {
    fail(scope, `the maxActiveQueues option must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

function buildQueue(parent: Scope, node: ConfigNode, index: number): QueueConfig {
  const { syntax } = parent;
  const unnamed: Scope = { syntax, location: { ...parent.location, queueIndex: index } };
  const queueLabel = syntax.label(node.key);
  checkNoText(unnamed, node, queueLabel);

  const nameKey = syntax.keyFor('name');
  const nameNodes = node.children.filter((child) => child.name === 'name');
  const nameNode = nameNodes[0];
  if (nameNode === undefined) fail(unnamed, `${syntax.label(nameKey)} is required`, { element: nameKey });
  if (nameNodes.length > 1) fail(unnamed, `${syntax.label(nameKey)} appears more than once`, { element: nameKey });
  const name = leafText(unnamed, nameNode);
  if (!QUEUE_NAME_PATTERN.test(name)) {
    fail(unnamed, `${syntax.label(nameNode.key)} must be 1 to 100 letters, digits or hyphens, got "${name}"`, {
      element: nameNode.key,
    });
  }

  const scope: Scope = { syntax, location: { file: parent.location.file, queue: name } };
  const groups = groupChildren(scope, node, queueLabel, QUEUE_ELEMENTS, NOTHING_REPEATABLE);
  const mode = queueMode(scope, groups.get('mode')?.[0]);

  if (mode === 'pull') {
    for (const element of PUSH_ONLY_QUEUE_ELEMENTS) {
      const found = groups.get(element)?.[0];
      if (found !== undefined) rejectInPullQueue(scope, found);
    }
  } else {
    for (const element of PUSH_ONLY_QUEUE_ELEMENTS) {
      const found = groups.get(element)?.[0];
      if (found !== undefined) checkPushValue(scope, found);
    }
  }
  const push =
    mode === 'push'
      ? buildPushSettings(
          (element) => groups.get(element)?.[0],
          syntax,
          (at, message) => fail(scope, message, { element: at.key }),
        )
      : undefined;

  const retryNode = groups.get('retry-parameters')?.[0];
  const { maxLeases, retry } =
    retryNode === undefined
      ? { maxLeases: null, retry: DEFAULT_RETRY_PARAMETERS }
      : retryParameters(scope, retryNode, mode);

  const aclNode = groups.get('acl')?.[0];
  let userEmails: string[] = [];
  let writerEmails: string[] = [];
  if (aclNode !== undefined) {
    if (mode === 'push') {
      fail(
        scope,
        `${syntax.label(aclNode.key)} is only allowed in pull queues (set ${syntax.label(syntax.keyFor('mode'))} to "pull")`,
        { element: aclNode.key },
      );
    }
    const aclGroups = groupChildren(scope, aclNode, syntax.label(aclNode.key), ACL_ELEMENTS, ACL_ELEMENTS);
    userEmails = (aclGroups.get('user-email') ?? []).map((child) => emailAddress(scope, child));
    writerEmails = (aclGroups.get('writer-email') ?? []).map((child) => emailAddress(scope, child));
  }

  const storageNode = groups.get('storage-limit')?.[0];
  const storageLimitBytes = storageNode === undefined ? null : storageSize(scope, storageNode);
  const leaseRateNode = groups.get('lease-rate')?.[0];
  const leaseRate = leaseRateNode === undefined ? DEFAULT_LEASE_RATE : leaseRateValue(scope, leaseRateNode);

  const queue: QueueConfig = {
    name,
    mode,
    maxLeases,
    storageLimitBytes,
    leaseRate,
    retry,
    acl: { userEmails, writerEmails },
  };
  return push === undefined ? queue : { ...queue, push };
}

function queueMode(scope: Scope, node: ConfigNode | undefined): QueueMode {
  if (node === undefined) return 'push';
  const text = leafText(scope, node);
  if (text !== 'push' && text !== 'pull') {
    fail(scope, `${scope.syntax.label(node.key)} must be "push" or "pull", got "${text}"`, { element: node.key });
  }
  return text;
}

/**
 * Reads `<retry-parameters>`: maxLeases is the task-retry-limit as App Engine
 * means it, 0 included: a push task is not retried after its first attempt,
 * a pull task is never leased (its first lease attempt moves it to the dead
 * letters). AppScale read 0 as unlimited, which retried a real queue.yaml's
 * `task_retry_limit: 0` forever. The rest are the backoff and age limit.
 */
function retryParameters(
  scope: Scope,
  node: ConfigNode,
  mode: QueueMode,
): { maxLeases: number | null; retry: RetryParameters } {
  const { syntax } = scope;
  const groups = groupChildren(scope, node, syntax.label(node.key), RETRY_ELEMENTS, NOTHING_REPEATABLE);
  for (const element of PUSH_ONLY_RETRY_ELEMENTS) {
    const found = groups.get(element)?.[0];
    if (found === undefined) continue;
    if (mode === 'pull') rejectInPullQueue(scope, found, ' (only push queues have a task age)');
    checkPushValue(scope, found);
  }
  const ageNode = groups.get('task-age-limit')?.[0];
  const minNode = groups.get('min-backoff-seconds')?.[0];
  const maxNode = groups.get('max-backoff-seconds')?.[0];
  const doublingsNode = groups.get('max-doublings')?.[0];
  const ageLimitSeconds = ageNode === undefined ? null : ageLimit(scope, ageNode);
  const min = minNode === undefined ? undefined : retrySeconds(scope, minNode);
  const max = maxNode === undefined ? undefined : retrySeconds(scope, maxNode);
  if (min !== undefined && max !== undefined && min > max && minNode !== undefined && maxNode !== undefined) {
    fail(
      scope,
      `${syntax.label(minNode.key)} (${min}) must not be greater than ${syntax.label(maxNode.key)} (${max})`,
      { element: minNode.key },
    );
  }
  // Only one of the two set, conflicting with the other's default: the
  // default gives way, as the SDK's TranslateRetryParameters does.
  const minBackoffSeconds = min ?? Math.min(DEFAULT_RETRY_PARAMETERS.minBackoffSeconds, max ?? Infinity);
  const maxBackoffSeconds = max ?? Math.max(DEFAULT_RETRY_PARAMETERS.maxBackoffSeconds, min ?? 0);
  const maxDoublings =
    doublingsNode === undefined ? DEFAULT_RETRY_PARAMETERS.maxDoublings : doublings(scope, doublingsNode);
  const retry: RetryParameters = { ageLimitSeconds, minBackoffSeconds, maxBackoffSeconds, maxDoublings };

  const limitNode = groups.get('task-retry-limit')?.[0];
  if (limitNode === undefined) return { maxLeases: null, retry };
  const text = leafText(scope, limitNode);
  const label = syntax.label(limitNode.key);
  if (!NON_NEGATIVE_INTEGER.test(text)) {
    fail(scope, `${label} must be a non-negative integer, got "${text}"`, { element: limitNode.key });
  }
  const limit = Number(text);
  if (limit > MAX_TASK_RETRY_LIMIT) {
    fail(scope, `${label} must be at most ${MAX_TASK_RETRY_LIMIT}, got "${text}"`, { element: limitNode.key });
  }
  return { maxLeases: limit, retry };
}

function retrySeconds(scope: Scope, node: ConfigNode): number {
  checkPushValue(scope, node);
  const text = leafText(scope, node);
  if (Number(text) > MAX_RETRY_SECONDS) {
    fail(scope, `${scope.syntax.label(node.key)} must be at most ${MAX_RETRY_SECONDS} seconds, got "${text}"`, {
      element: node.key,
    });
  }
  return Number(text);
}

function doublings(scope: Scope, node: ConfigNode): number {
  checkPushValue(scope, node);
  const text = leafText(scope, node);
  if (Number(text) > MAX_DOUBLINGS) {
    fail(scope, `${scope.syntax.label(node.key)} must be at most ${MAX_DOUBLINGS}, got "${text}"`, {
      element: node.key,
    });
  }
  return Number(text);
}

function ageLimit(scope: Scope, node: ConfigNode): number {
  const text = leafText(scope, node);
  const seconds = Number(text.slice(0, -1)) * (AGE_UNIT_SECONDS[text.slice(-1)] ?? NaN);
  if (!Number.isFinite(seconds) || seconds > MAX_RETRY_SECONDS) {
    fail(scope, `${scope.syntax.label(node.key)} must be at most ${MAX_RETRY_SECONDS} seconds, got "${text}"`, {
      element: node.key,
    });
  }
  return seconds;
}

function rejectInPullQueue(scope: Scope, node: ConfigNode, hint = ''): never {
  return fail(scope, `${scope.syntax.label(node.key)} is not allowed in a pull queue${hint}`, { element: node.key });
}

function checkPushValue(scope: Scope, node: ConfigNode): void {
  const text = leafText(scope, node);
  const rule = node.name === null ? undefined : PUSH_VALUE_RULES[node.name];
  if (rule !== undefined && !rule.pattern.test(text)) {
    fail(scope, `${scope.syntax.label(node.key)} must be ${rule.expected}, got "${text}"`, { element: node.key });
  }
}

function storageSize(scope: Scope, node: ConfigNode): number {
  const text = leafText(scope, node);
  return withElement(scope, node, () => parseStorageSize(text));
}

function leaseRateValue(scope: Scope, node: ConfigNode): LeaseRate | null {
  const text = leafText(scope, node);
  return withElement(scope, node, () => parseLeaseRate(text));
}

function emailAddress(scope: Scope, node: ConfigNode): string {
  const text = leafText(scope, node);
  if (!isEmailAddress(text)) {
    fail(scope, `${scope.syntax.label(node.key)} must be an e-mail address, got "${text}"`, { element: node.key });
  }
  return text;
}
