/**
 * Configuration rules of <mode> and of what only a push queue or only a
 * pull queue may hold, each checked once through queue.xml and once through
 * queue.yaml (describeConfigRules).
 */
import { PULL_XML, PULL_YAML, describeConfigRules, xmlJobs, yamlJobs, type RuleCase } from './config-rules-harness.js';

const cases: RuleCase[] = [
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
  ).map(([xmlName, yamlName, value]): RuleCase => ({
    title: `<${xmlName}> in a pull queue`,
    xml: xmlJobs(`${PULL_XML}<${xmlName}>${value}</${xmlName}>`),
    xmlMessage: `queue.xml: queue "jobs": <${xmlName}> is not allowed in a pull queue`,
    xmlElement: xmlName,
    yaml: yamlJobs(PULL_YAML, `${yamlName}: ${value}`),
    yamlMessage: `queue.yaml: queue "jobs": ${yamlName} is not allowed in a pull queue`,
    yamlElement: yamlName,
    queue: 'jobs',
  })),
  ...([['task-age-limit', 'task_age_limit', '2d']] as const).map(([xmlName, yamlName, value]): RuleCase => ({
    title: `<retry-parameters><${xmlName}> in a pull queue`,
    xml: xmlJobs(
      `${PULL_XML}<retry-parameters><task-retry-limit>3</task-retry-limit><${xmlName}>${value}</${xmlName}></retry-parameters>`,
    ),
    xmlMessage: `queue.xml: queue "jobs": <${xmlName}> is not allowed in a pull queue (only push queues have a task age)`,
    xmlElement: xmlName,
    yaml: yamlJobs(PULL_YAML, 'retry_parameters:', '  task_retry_limit: 3', `  ${yamlName}: ${value}`),
    yamlMessage: `queue.yaml: queue "jobs": ${yamlName} is not allowed in a pull queue (only push queues have a task age)`,
    yamlElement: yamlName,
    queue: 'jobs',
  })),
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
];

describeConfigRules(cases);
