/**
 * Every validation rule, checked once through queue.xml and once through
 * queue.yaml: both formats share one set of rules, and each message must name
 * the file, the queue (when there is one) and the element as that format
 * spells it.
 */
import { describe, expect, it } from 'vitest';
import { parseQueueXml } from '../../src/config/parse-queue-xml.js';
import { parseQueueYaml } from '../../src/config/parse-queue-yaml.js';
import { catchConfigError } from './catch-config-error.js';

interface RuleCase {
  readonly title: string;
  readonly xml: string;
  readonly xmlMessage: string;
  readonly xmlElement: string;
  readonly yaml: string;
  readonly yamlMessage: string;
  readonly yamlElement: string;
  /** Expected `details.queue` (undefined: none). */
  readonly queue?: string;
  /** Expected `details.queueIndex` (undefined: none). */
  readonly queueIndex?: number;
}

/** A queue.xml with one queue named `jobs` holding `body`. */
function xmlJobs(body: string): string {
  return `<queue-entries><queue><name>jobs</name>${body}</queue></queue-entries>`;
}

/** A queue.yaml with one queue named `jobs`; `lines` are its further keys, two-space indented. */
function yamlJobs(...lines: string[]): string {
  return ['queue:', '- name: jobs', ...lines.map((line) => `  ${line}`)].join('\n') + '\n';
}

const PULL_XML = '<mode>pull</mode>';
const PULL_YAML = 'mode: pull';

const cases: RuleCase[] = [
  {
    title: 'a queue without a name',
    xml: '<queue-entries><queue><mode>pull</mode></queue></queue-entries>',
    xmlMessage: 'queue.xml: queue #1: <name> is required',
    xmlElement: 'name',
    yaml: 'queue:\n- mode: pull\n',
    yamlMessage: 'queue.yaml: queue #1: name is required',
    yamlElement: 'name',
    queueIndex: 1,
  },
  {
    title: 'an empty queue element',
    xml: '<queue-entries><queue><name>a</name></queue><queue/></queue-entries>',
    xmlMessage: 'queue.xml: queue #2: <name> is required',
    xmlElement: 'name',
    yaml: 'queue:\n- name: a\n- {}\n',
    yamlMessage: 'queue.yaml: queue #2: name is required',
    yamlElement: 'name',
    queueIndex: 2,
  },
  {
    title: 'a queue name with a space',
    xml: '<queue-entries><queue><name>bad name</name></queue></queue-entries>',
    xmlMessage: 'queue.xml: queue #1: <name> must be 1 to 100 letters, digits or hyphens, got "bad name"',
    xmlElement: 'name',
    yaml: 'queue:\n- name: bad name\n',
    yamlMessage: 'queue.yaml: queue #1: name must be 1 to 100 letters, digits or hyphens, got "bad name"',
    yamlElement: 'name',
    queueIndex: 1,
  },
  {
    title: 'a queue name with an underscore',
    xml: '<queue-entries><queue><name>my_queue</name></queue></queue-entries>',
    xmlMessage: 'queue.xml: queue #1: <name> must be 1 to 100 letters, digits or hyphens, got "my_queue"',
    xmlElement: 'name',
    yaml: 'queue:\n- name: my_queue\n',
    yamlMessage: 'queue.yaml: queue #1: name must be 1 to 100 letters, digits or hyphens, got "my_queue"',
    yamlElement: 'name',
    queueIndex: 1,
  },
  {
    title: 'a queue name longer than 100 characters',
    xml: `<queue-entries><queue><name>${'a'.repeat(101)}</name></queue></queue-entries>`,
    xmlMessage: `queue.xml: queue #1: <name> must be 1 to 100 letters, digits or hyphens, got "${'a'.repeat(101)}"`,
    xmlElement: 'name',
    yaml: `queue:\n- name: ${'a'.repeat(101)}\n`,
    yamlMessage: `queue.yaml: queue #1: name must be 1 to 100 letters, digits or hyphens, got "${'a'.repeat(101)}"`,
    yamlElement: 'name',
    queueIndex: 1,
  },
  {
    title: 'an empty queue name',
    xml: '<queue-entries><queue><name></name></queue></queue-entries>',
    xmlMessage: 'queue.xml: queue #1: <name> must be 1 to 100 letters, digits or hyphens, got ""',
    xmlElement: 'name',
    yaml: 'queue:\n- name:\n',
    yamlMessage: 'queue.yaml: queue #1: name must be 1 to 100 letters, digits or hyphens, got ""',
    yamlElement: 'name',
    queueIndex: 1,
  },
  {
    title: 'two names in one queue',
    xml: '<queue-entries><queue><name>a</name><name>b</name></queue></queue-entries>',
    xmlMessage: 'queue.xml: queue #1: <name> appears more than once',
    xmlElement: 'name',
    // YAML itself forbids duplicate keys, so the closest YAML mistake is a name that is a list.
    yaml: 'queue:\n- name: [a, b]\n',
    yamlMessage: 'queue.yaml: queue #1: name must be a single value, not a list',
    yamlElement: 'name',
    queueIndex: 1,
  },
  {
    title: 'a duplicate queue name',
    xml: '<queue-entries><queue><name>jobs</name></queue><queue><name>other</name></queue><queue><name>jobs</name></queue></queue-entries>',
    xmlMessage: 'queue.xml: queue "jobs": <name> "jobs" is already used by an earlier queue',
    xmlElement: 'name',
    yaml: 'queue:\n- name: jobs\n- name: other\n- name: jobs\n',
    yamlMessage: 'queue.yaml: queue "jobs": name "jobs" is already used by an earlier queue',
    yamlElement: 'name',
    queue: 'jobs',
  },
  {
    title: 'an unknown mode',
    xml: xmlJobs('<mode>Pull</mode>'),
    xmlMessage: 'queue.xml: queue "jobs": <mode> must be "push" or "pull", got "Pull"',
    xmlElement: 'mode',
    yaml: yamlJobs('mode: Pull'),
    yamlMessage: 'queue.yaml: queue "jobs": mode must be "push" or "pull", got "Pull"',
    yamlElement: 'mode',
    queue: 'jobs',
  },
  {
    title: 'an empty mode',
    xml: xmlJobs('<mode/>'),
    xmlMessage: 'queue.xml: queue "jobs": <mode> must be "push" or "pull", got ""',
    xmlElement: 'mode',
    yaml: yamlJobs('mode: ~'),
    yamlMessage: 'queue.yaml: queue "jobs": mode must be "push" or "pull", got ""',
    yamlElement: 'mode',
    queue: 'jobs',
  },
  ...(
    [
      ['rate', 'rate', '5/s'],
      ['bucket-size', 'bucket_size', '10'],
      ['max-concurrent-requests', 'max_concurrent_requests', '20'],
      ['target', 'target', 'v1'],
    ] as const
  ).map(
    ([xmlName, yamlName, value]): RuleCase => ({
      title: `<${xmlName}> in a pull queue`,
      xml: xmlJobs(`${PULL_XML}<${xmlName}>${value}</${xmlName}>`),
      xmlMessage: `queue.xml: queue "jobs": <${xmlName}> is not allowed in a pull queue`,
      xmlElement: xmlName,
      yaml: yamlJobs(PULL_YAML, `${yamlName}: ${value}`),
      yamlMessage: `queue.yaml: queue "jobs": ${yamlName} is not allowed in a pull queue`,
      yamlElement: yamlName,
      queue: 'jobs',
    }),
  ),
  ...(
    [
      ['task-age-limit', 'task_age_limit', '2d'],
    ] as const
  ).map(
    ([xmlName, yamlName, value]): RuleCase => ({
      title: `<retry-parameters><${xmlName}> in a pull queue`,
      xml: xmlJobs(`${PULL_XML}<retry-parameters><task-retry-limit>3</task-retry-limit><${xmlName}>${value}</${xmlName}></retry-parameters>`),
      xmlMessage: `queue.xml: queue "jobs": <${xmlName}> is not allowed in a pull queue (only push queues have a task age)`,
      xmlElement: xmlName,
      yaml: yamlJobs(PULL_YAML, 'retry_parameters:', '  task_retry_limit: 3', `  ${yamlName}: ${value}`),
      yamlMessage: `queue.yaml: queue "jobs": ${yamlName} is not allowed in a pull queue (only push queues have a task age)`,
      yamlElement: yamlName,
      queue: 'jobs',
    }),
  ),
  {
    title: 'an ACL in a push queue (mode absent)',
    xml: xmlJobs('<acl><user-email>a@example.com</user-email></acl>'),
    xmlMessage: 'queue.xml: queue "jobs": <acl> is only allowed in pull queues (set <mode> to "pull")',
    xmlElement: 'acl',
    yaml: yamlJobs('acl:', '- user_email: a@example.com'),
    yamlMessage: 'queue.yaml: queue "jobs": acl is only allowed in pull queues (set mode to "pull")',
    yamlElement: 'acl',
    queue: 'jobs',
  },
  {
    title: 'an empty ACL in an explicit push queue',
    xml: xmlJobs('<mode>push</mode><acl/>'),
    xmlMessage: 'queue.xml: queue "jobs": <acl> is only allowed in pull queues (set <mode> to "pull")',
    xmlElement: 'acl',
    yaml: yamlJobs('mode: push', 'acl: []'),
    yamlMessage: 'queue.yaml: queue "jobs": acl is only allowed in pull queues (set mode to "pull")',
    yamlElement: 'acl',
    queue: 'jobs',
  },
  ...(
    [
      ['rate', 'rate', '5/x', 'a rate such as "5/s"'],
      ['rate', 'rate', 'fast', 'a rate such as "5/s"'],
      ['bucket-size', 'bucket_size', '-1', 'a non-negative integer'],
      ['max-concurrent-requests', 'max_concurrent_requests', 'many', 'a non-negative integer'],
      ['target', 'target', '', 'a version or module name'],
    ] as const
  ).map(
    ([xmlName, yamlName, value, expected]): RuleCase => ({
      title: `a bad push <${xmlName}> ${JSON.stringify(value)}`,
      xml: xmlJobs(`<${xmlName}>${value}</${xmlName}>`),
      xmlMessage: `queue.xml: queue "jobs": <${xmlName}> must be ${expected}, got "${value}"`,
      xmlElement: xmlName,
      yaml: yamlJobs(`${yamlName}: "${value}"`),
      yamlMessage: `queue.yaml: queue "jobs": ${yamlName} must be ${expected}, got "${value}"`,
      yamlElement: yamlName,
      queue: 'jobs',
    }),
  ),
  ...(
    [
      ['task-age-limit', 'task_age_limit', '2', 'a duration such as "2d" (a number with an s, m, h or d suffix)'],
      ['min-backoff-seconds', 'min_backoff_seconds', '-1', 'a non-negative number of seconds'],
      ['max-backoff-seconds', 'max_backoff_seconds', '1s', 'a non-negative number of seconds'],
      ['max-doublings', 'max_doublings', '1.5', 'a non-negative integer'],
    ] as const
  ).map(
    ([xmlName, yamlName, value, expected]): RuleCase => ({
      title: `a bad push <retry-parameters><${xmlName}> ${JSON.stringify(value)}`,
      xml: xmlJobs(`<retry-parameters><${xmlName}>${value}</${xmlName}></retry-parameters>`),
      xmlMessage: `queue.xml: queue "jobs": <${xmlName}> must be ${expected}, got "${value}"`,
      xmlElement: xmlName,
      yaml: yamlJobs('retry_parameters:', `  ${yamlName}: "${value}"`),
      yamlMessage: `queue.yaml: queue "jobs": ${yamlName} must be ${expected}, got "${value}"`,
      yamlElement: yamlName,
      queue: 'jobs',
    }),
  ),
  ...(
    [
      ['user-email', 'user_email', 'not-an-email'],
      ['user-email', 'user_email', 'a@b@example.com'],
      ['writer-email', 'writer_email', 'a b@example.com'],
      ['writer-email', 'writer_email', '@example.com'],
      ['user-email', 'user_email', ''],
    ] as const
  ).map(
    ([xmlName, yamlName, value]): RuleCase => ({
      title: `a bad ACL <${xmlName}> ${JSON.stringify(value)}`,
      xml: xmlJobs(`${PULL_XML}<acl><user-email>ok@example.com</user-email><${xmlName}>${value}</${xmlName}></acl>`),
      xmlMessage: `queue.xml: queue "jobs": <${xmlName}> must be an e-mail address, got "${value}"`,
      xmlElement: xmlName,
      yaml: yamlJobs(PULL_YAML, 'acl:', '- user_email: ok@example.com', `- ${yamlName}: "${value}"`),
      yamlMessage: `queue.yaml: queue "jobs": ${yamlName} must be an e-mail address, got "${value}"`,
      yamlElement: yamlName,
      queue: 'jobs',
    }),
  ),
  ...['abc', '-1', '1.5', '', '+3', '1e3'].map(
    (value): RuleCase => ({
      title: `<task-retry-limit> ${JSON.stringify(value)}`,
      xml: xmlJobs(`${PULL_XML}<retry-parameters><task-retry-limit>${value}</task-retry-limit></retry-parameters>`),
      xmlMessage: `queue.xml: queue "jobs": <task-retry-limit> must be a non-negative integer, got "${value}"`,
      xmlElement: 'task-retry-limit',
      yaml: yamlJobs(PULL_YAML, 'retry_parameters:', `  task_retry_limit: ${value}`),
      yamlMessage: `queue.yaml: queue "jobs": task_retry_limit must be a non-negative integer, got "${value}"`,
      yamlElement: 'task_retry_limit',
      queue: 'jobs',
    }),
  ),
  {
    title: 'a <task-retry-limit> beyond a PostgreSQL integer',
    xml: xmlJobs(`${PULL_XML}<retry-parameters><task-retry-limit>2147483648</task-retry-limit></retry-parameters>`),
    xmlMessage: 'queue.xml: queue "jobs": <task-retry-limit> must be at most 2147483647, got "2147483648"',
    xmlElement: 'task-retry-limit',
    yaml: yamlJobs(PULL_YAML, 'retry_parameters:', '  task_retry_limit: 2147483648'),
    yamlMessage: 'queue.yaml: queue "jobs": task_retry_limit must be at most 2147483647, got "2147483648"',
    yamlElement: 'task_retry_limit',
    queue: 'jobs',
  },
  {
    title: 'a bad <total-storage-limit>',
    xml: '<queue-entries><total-storage-limit>lots</total-storage-limit></queue-entries>',
    xmlMessage:
      'queue.xml: <total-storage-limit> must be a size such as "120M" (a number with an optional B, K, M, G or T suffix), got "lots"',
    xmlElement: 'total-storage-limit',
    yaml: 'total_storage_limit: lots\n',
    yamlMessage:
      'queue.yaml: total_storage_limit must be a size such as "120M" (a number with an optional B, K, M, G or T suffix), got "lots"',
    yamlElement: 'total_storage_limit',
  },
  {
    title: 'two <total-storage-limit> elements',
    xml: '<queue-entries><total-storage-limit>1M</total-storage-limit><total-storage-limit>2M</total-storage-limit></queue-entries>',
    xmlMessage: 'queue.xml: <total-storage-limit> appears more than once in <queue-entries>',
    xmlElement: 'total-storage-limit',
    yaml: 'total_storage_limit: [1M, 2M]\n',
    yamlMessage: 'queue.yaml: total_storage_limit must be a single value, not a list',
    yamlElement: 'total_storage_limit',
  },
  {
    title: 'a bad <storage-limit>',
    xml: xmlJobs(`${PULL_XML}<storage-limit>12MB</storage-limit>`),
    xmlMessage:
      'queue.xml: queue "jobs": <storage-limit> must be a size such as "120M" (a number with an optional B, K, M, G or T suffix), got "12MB"',
    xmlElement: 'storage-limit',
    yaml: yamlJobs(PULL_YAML, 'storage_limit: 12MB'),
    yamlMessage:
      'queue.yaml: queue "jobs": storage_limit must be a size such as "120M" (a number with an optional B, K, M, G or T suffix), got "12MB"',
    yamlElement: 'storage_limit',
    queue: 'jobs',
  },
  ...['5/x', '1.5/s', 'fast', ''].map(
    (value): RuleCase => ({
      title: `<lease-rate> ${JSON.stringify(value)}`,
      xml: xmlJobs(`${PULL_XML}<lease-rate>${value}</lease-rate>`),
      xmlMessage: `queue.xml: queue "jobs": <lease-rate> must be a rate such as "20/s", "600/m", "5/h" or "1/d", or "unlimited", got "${value}"`,
      xmlElement: 'lease-rate',
      yaml: yamlJobs(PULL_YAML, `lease_rate: "${value}"`),
      yamlMessage: `queue.yaml: queue "jobs": lease_rate must be a rate such as "20/s", "600/m", "5/h" or "1/d", or "unlimited", got "${value}"`,
      yamlElement: 'lease_rate',
      queue: 'jobs',
    }),
  ),
  {
    title: 'a <lease-rate> of zero calls',
    xml: xmlJobs(`${PULL_XML}<lease-rate>0/s</lease-rate>`),
    xmlMessage: `queue.xml: queue "jobs": <lease-rate> must allow a positive whole number of calls (at most ${Number.MAX_SAFE_INTEGER}), got "0/s"`,
    xmlElement: 'lease-rate',
    yaml: yamlJobs(PULL_YAML, 'lease_rate: 0/s'),
    yamlMessage: `queue.yaml: queue "jobs": lease_rate must allow a positive whole number of calls (at most ${Number.MAX_SAFE_INTEGER}), got "0/s"`,
    yamlElement: 'lease_rate',
    queue: 'jobs',
  },
  {
    title: 'a bad <admin-email>',
    xml: '<queue-entries><admin-email>root@example.com</admin-email><admin-email>root</admin-email></queue-entries>',
    xmlMessage: 'queue.xml: <admin-email> must be an e-mail address, got "root"',
    xmlElement: 'admin-email',
    yaml: 'admin_emails:\n- root@example.com\n- root\n',
    yamlMessage: 'queue.yaml: admin_emails must be an e-mail address, got "root"',
    yamlElement: 'admin_emails',
  },
  {
    title: 'a misspelt element in a queue',
    xml: xmlJobs(`${PULL_XML}<task-retry-limit>3</task-retry-limit>`),
    xmlMessage: 'queue.xml: queue "jobs": unknown element <task-retry-limit> in <queue>',
    xmlElement: 'task-retry-limit',
    yaml: yamlJobs(PULL_YAML, 'task_retry_limit: 3'),
    yamlMessage: 'queue.yaml: queue "jobs": unknown key task_retry_limit in queue',
    yamlElement: 'task_retry_limit',
    queue: 'jobs',
  },
  {
    title: 'a misspelt element in retry parameters',
    xml: xmlJobs(`${PULL_XML}<retry-parameters><task-retry-limt>3</task-retry-limt></retry-parameters>`),
    xmlMessage: 'queue.xml: queue "jobs": unknown element <task-retry-limt> in <retry-parameters>',
    xmlElement: 'task-retry-limt',
    yaml: yamlJobs(PULL_YAML, 'retry_parameters:', '  task-retry-limit: 3'),
    yamlMessage: 'queue.yaml: queue "jobs": unknown key task-retry-limit in retry_parameters',
    yamlElement: 'task-retry-limit',
    queue: 'jobs',
  },
  {
    title: 'a misspelt element in an ACL',
    xml: xmlJobs(`${PULL_XML}<acl><reader-email>a@example.com</reader-email></acl>`),
    xmlMessage: 'queue.xml: queue "jobs": unknown element <reader-email> in <acl>',
    xmlElement: 'reader-email',
    yaml: yamlJobs(PULL_YAML, 'acl:', '- reader_email: a@example.com'),
    yamlMessage: 'queue.yaml: queue "jobs": unknown key reader_email in acl',
    yamlElement: 'reader_email',
    queue: 'jobs',
  },
  {
    title: 'an unknown element at the top level',
    xml: '<queue-entries><application>demo</application></queue-entries>',
    xmlMessage: 'queue.xml: unknown element <application> in <queue-entries>',
    xmlElement: 'application',
    yaml: 'application: demo\nqueue: []\n',
    yamlMessage: 'queue.yaml: unknown key application in the top level',
    yamlElement: 'application',
  },
  {
    title: 'a queue-level element at the top level',
    xml: '<queue-entries><mode>pull</mode></queue-entries>',
    xmlMessage: 'queue.xml: unknown element <mode> in <queue-entries>',
    xmlElement: 'mode',
    yaml: 'mode: pull\n',
    yamlMessage: 'queue.yaml: unknown key mode in the top level',
    yamlElement: 'mode',
  },
  {
    title: 'a repeated <mode>',
    xml: xmlJobs('<mode>pull</mode><mode>push</mode>'),
    xmlMessage: 'queue.xml: queue "jobs": <mode> appears more than once in <queue>',
    xmlElement: 'mode',
    yaml: yamlJobs('mode: [pull, push]'),
    yamlMessage: 'queue.yaml: queue "jobs": mode must be a single value, not a list',
    yamlElement: 'mode',
    queue: 'jobs',
  },
  {
    title: 'a value holding elements',
    xml: xmlJobs('<mode><pull/></mode>'),
    xmlMessage: 'queue.xml: queue "jobs": <mode> must hold a single value, not <pull>',
    xmlElement: 'mode',
    yaml: yamlJobs('mode: {pull: yes}'),
    yamlMessage: 'queue.yaml: queue "jobs": mode must hold a single value, not pull',
    yamlElement: 'mode',
    queue: 'jobs',
  },
  {
    title: 'text inside a container',
    xml: xmlJobs(`${PULL_XML}<retry-parameters>5</retry-parameters>`),
    xmlMessage: 'queue.xml: queue "jobs": unexpected text "5" in <retry-parameters>',
    xmlElement: 'retry-parameters',
    yaml: yamlJobs(PULL_YAML, 'retry_parameters: 5'),
    yamlMessage: 'queue.yaml: queue "jobs": unexpected text "5" in retry_parameters',
    yamlElement: 'retry_parameters',
    queue: 'jobs',
  },
];

describe('configuration rules (queue.xml and queue.yaml alike)', () => {
  describe.each(cases)('$title', (rule) => {
    it('is rejected in queue.xml', () => {
      const error = catchConfigError(() => parseQueueXml(rule.xml, 'queue.xml'));
      expect(error.message).toBe(rule.xmlMessage);
      expect(error.details).toMatchObject({ file: 'queue.xml', element: rule.xmlElement });
      expect(error.details.queue).toBe(rule.queue);
      expect(error.details['queueIndex']).toBe(rule.queueIndex);
    });

    it('is rejected in queue.yaml', () => {
      const error = catchConfigError(() => parseQueueYaml(rule.yaml, 'queue.yaml'));
      expect(error.message).toBe(rule.yamlMessage);
      expect(error.details).toMatchObject({ file: 'queue.yaml', element: rule.yamlElement });
      // YAML shape errors are found while reading, before the queue is known, so only check when expected.
      if (rule.queue !== undefined) expect(error.details.queue).toBe(rule.queue);
      if (rule.queueIndex !== undefined) expect(error.details['queueIndex']).toBe(rule.queueIndex);
    });
  });
});
