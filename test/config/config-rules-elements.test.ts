/**
 * Configuration rules of elements (unknown, misplaced or repeated ones,
 * values of the wrong shape), each checked once through queue.xml and once
 * through queue.yaml (describeConfigRules).
 */
import { PULL_XML, PULL_YAML, describeConfigRules, xmlJobs, yamlJobs, type RuleCase } from './config-rules-harness.js';

const cases: RuleCase[] = [
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
    // queue.yaml's application: is App Engine's and accepted (parse-queue-yaml.test.ts); another key is not.
    yaml: 'version: demo\nqueue: []\n',
    yamlMessage: 'queue.yaml: unknown key version in the top level',
    yamlElement: 'version',
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

describeConfigRules(cases);
