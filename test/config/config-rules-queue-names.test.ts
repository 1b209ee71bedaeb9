/**
 * Configuration rules of queue names (present, well formed, single,
 * unique), each checked once through queue.xml and once through queue.yaml
 * (describeConfigRules).
 */
import { describeConfigRules, type RuleCase } from './config-rules-harness.js';

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
];

describeConfigRules(cases);
