import { describe, expect, it } from 'vitest';
import { parseQueueXml } from '../../src/config/parse-queue-xml.js';
import { parseQueueYaml } from '../../src/config/parse-queue-yaml.js';
import { catchConfigError } from './catch-config-error.js';

/**
 * What the configuration rule tests (config-rules-*.test.ts) share: a rule
 * case, the queue.xml and queue.yaml it is written in, and the checks each
 * case gets in both formats.
 */

export interface RuleCase {
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
export function xmlJobs(body: string): string {
  return `<queue-entries><queue><name>jobs</name>${body}</queue></queue-entries>`;
}

/** A queue.yaml with one queue named `jobs`; `lines` are its further keys, two-space indented. */
export function yamlJobs(...lines: string[]): string {
  return ['queue:', '- name: jobs', ...lines.map((line) => `  ${line}`)].join('\n') + '\n';
}

export const PULL_XML = '<mode>pull</mode>';
export const PULL_YAML = 'mode: pull';

/**
 * Every rule of `cases`, checked once through queue.xml and once through
 * queue.yaml: the message names the file, the queue (when there is one) and
 * the element as that format spells it.
 */
export function describeConfigRules(cases: RuleCase[]): void {
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
}
