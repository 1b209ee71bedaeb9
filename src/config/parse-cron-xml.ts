import type { CronConfig } from '../core/cron/cron-job.js';
import { buildCronConfig } from './build-cron-config.js';
import type { ConfigNode, ConfigSyntax } from './config-node.js';
import { readXmlDocument } from './parse-queue-xml.js';

/** How cron.xml names things in messages: `<job-retry-limit>`. */
export const CRON_XML_SYNTAX: ConfigSyntax = {
  label: (key) => `<${key}>`,
  keyFor: (name) => name,
  rootLabel: '<cronentries>',
  elementNoun: 'element',
};

/**
 * Parses a cron.xml document (App Engine's `<cronentries><cron><url>...`,
 * with `<retry-parameters>`, plus our `<queue>` and `<name>`) into validated
 * jobs, with the same rules and the same XML hardening as queue.xml.
 * Throws QueueError INVALID_CONFIG naming the file, the job and the element.
 */
export function parseCronXml(text: string, source: string): CronConfig {
  return buildCronConfig(readCronXml(text, source), CRON_XML_SYNTAX, source);
}

/** Checks cron.xml syntax and turns it into the format-neutral tree (root `<cronentries>`). */
export function readCronXml(text: string, source: string): ConfigNode {
  return readXmlDocument(text, source, { root: 'cronentries', fileLabel: 'cron.xml' });
}
