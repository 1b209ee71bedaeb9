/**
 * Configuration rules of values (rates, sizes, retry parameters, limits,
 * e-mail addresses), each checked once through queue.xml and once through
 * queue.yaml (describeConfigRules).
 */
import { PULL_XML, PULL_YAML, describeConfigRules, xmlJobs, yamlJobs, type RuleCase } from './config-rules-harness.js';

const cases: RuleCase[] = [
  ...(
    [
      ['rate', 'rate', '5/x', 'a rate such as "5/s"'],
      ['rate', 'rate', 'fast', 'a rate such as "5/s"'],
      ['bucket-size', 'bucket_size', '-1', 'a non-negative integer'],
      ['max-concurrent-requests', 'max_concurrent_requests', 'many', 'a non-negative integer'],
      ['target', 'target', '', 'a version or module name'],
    ] as const
  ).map(([xmlName, yamlName, value, expected]): RuleCase => ({
    title: `a bad push <${xmlName}> ${JSON.stringify(value)}`,
    xml: xmlJobs(`<${xmlName}>${value}</${xmlName}>`),
    xmlMessage: `queue.xml: queue "jobs": <${xmlName}> must be ${expected}, got "${value}"`,
    xmlElement: xmlName,
    yaml: yamlJobs(`${yamlName}: "${value}"`),
    yamlMessage: `queue.yaml: queue "jobs": ${yamlName} must be ${expected}, got "${value}"`,
    yamlElement: yamlName,
    queue: 'jobs',
  })),
  ...(
    [
      ['task-age-limit', 'task_age_limit', '2', 'a duration such as "2d" (a number with an s, m, h or d suffix)'],
      ['min-backoff-seconds', 'min_backoff_seconds', '-1', 'a non-negative number of seconds'],
      ['max-backoff-seconds', 'max_backoff_seconds', '1s', 'a non-negative number of seconds'],
      ['max-doublings', 'max_doublings', '1.5', 'a non-negative integer'],
    ] as const
  ).map(([xmlName, yamlName, value, expected]): RuleCase => ({
    title: `a bad push <retry-parameters><${xmlName}> ${JSON.stringify(value)}`,
    xml: xmlJobs(`<retry-parameters><${xmlName}>${value}</${xmlName}></retry-parameters>`),
    xmlMessage: `queue.xml: queue "jobs": <${xmlName}> must be ${expected}, got "${value}"`,
    xmlElement: xmlName,
    yaml: yamlJobs('retry_parameters:', `  ${yamlName}: "${value}"`),
    yamlMessage: `queue.yaml: queue "jobs": ${yamlName} must be ${expected}, got "${value}"`,
    yamlElement: yamlName,
    queue: 'jobs',
  })),
  ...(
    [
      ['user-email', 'user_email', 'not-an-email'],
      ['user-email', 'user_email', 'a@b@example.com'],
      ['writer-email', 'writer_email', 'a b@example.com'],
      ['writer-email', 'writer_email', '@example.com'],
      ['user-email', 'user_email', ''],
    ] as const
  ).map(([xmlName, yamlName, value]): RuleCase => ({
    title: `a bad ACL <${xmlName}> ${JSON.stringify(value)}`,
    xml: xmlJobs(`${PULL_XML}<acl><user-email>ok@example.com</user-email><${xmlName}>${value}</${xmlName}></acl>`),
    xmlMessage: `queue.xml: queue "jobs": <${xmlName}> must be an e-mail address, got "${value}"`,
    xmlElement: xmlName,
    yaml: yamlJobs(PULL_YAML, 'acl:', '- user_email: ok@example.com', `- ${yamlName}: "${value}"`),
    yamlMessage: `queue.yaml: queue "jobs": ${yamlName} must be an e-mail address, got "${value}"`,
    yamlElement: yamlName,
    queue: 'jobs',
  })),
  ...['abc', '-1', '1.5', '', '+3', '1e3'].map((value): RuleCase => ({
    title: `<task-retry-limit> ${JSON.stringify(value)}`,
    xml: xmlJobs(`${PULL_XML}<retry-parameters><task-retry-limit>${value}</task-retry-limit></retry-parameters>`),
    xmlMessage: `queue.xml: queue "jobs": <task-retry-limit> must be a non-negative integer, got "${value}"`,
    xmlElement: 'task-retry-limit',
    yaml: yamlJobs(PULL_YAML, 'retry_parameters:', `  task_retry_limit: ${value}`),
    yamlMessage: `queue.yaml: queue "jobs": task_retry_limit must be a non-negative integer, got "${value}"`,
    yamlElement: 'task_retry_limit',
    queue: 'jobs',
  })),
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
  ...['5/x', '1.5/s', 'fast', ''].map((value): RuleCase => ({
    title: `<lease-rate> ${JSON.stringify(value)}`,
    xml: xmlJobs(`${PULL_XML}<lease-rate>${value}</lease-rate>`),
    xmlMessage: `queue.xml: queue "jobs": <lease-rate> must be a rate such as "20/s", "600/m", "5/h" or "1/d", or "unlimited", got "${value}"`,
    xmlElement: 'lease-rate',
    yaml: yamlJobs(PULL_YAML, `lease_rate: "${value}"`),
    yamlMessage: `queue.yaml: queue "jobs": lease_rate must be a rate such as "20/s", "600/m", "5/h" or "1/d", or "unlimited", got "${value}"`,
    yamlElement: 'lease_rate',
    queue: 'jobs',
  })),
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
];

describeConfigRules(cases);
