import { isAlias, isMap, isScalar, isSeq, type Document, type Node } from 'yaml';
import type { CronConfig } from '../core/cron/cron-job.js';
import { buildCronConfig } from './build-cron-config.js';
import { configError, type ConfigErrorLocation } from './config-error.js';
import { parseYamlDocument } from './parse-yaml-document.js';
import { configNode, type ConfigNode, type ConfigSyntax } from './config-node.js';

/** cron.yaml keys and the canonical (cron.xml) names they stand for. */
const YAML_KEYS: ReadonlyMap<string, string> = new Map([
  ['cron', 'cron'],
  ['application', 'application'],
  ['url', 'url'],
  ['schedule', 'schedule'],
  ['description', 'description'],
  ['timezone', 'timezone'],
  ['target', 'target'],
  ['retry_parameters', 'retry-parameters'],
  ['job_retry_limit', 'job-retry-limit'],
  ['job_age_limit', 'job-age-limit'],
  ['min_backoff_seconds', 'min-backoff-seconds'],
  ['max_backoff_seconds', 'max-backoff-seconds'],
  ['max_doublings', 'max-doublings'],
  ['queue', 'queue'],
  ['name', 'name'],
]);
const CANONICAL_TO_YAML: ReadonlyMap<string, string> = new Map([...YAML_KEYS].map(([key, name]) => [name, key]));

/** How cron.yaml names things in messages: `job_retry_limit`. */
export const CRON_YAML_SYNTAX: ConfigSyntax = {
  label: (key) => key,
  keyFor: (name) => CANONICAL_TO_YAML.get(name) ?? name,
  rootLabel: 'the top level',
  elementNoun: 'key',
};

/**
 * Parses a cron.yaml document (App Engine's layout, `cron: [{url, schedule,
 * ...}]`, plus our `queue` and `name` keys) into validated jobs; see
 * build-cron-config.ts for the rules. Scalars are taken as written, as in
 * queue.yaml. Throws QueueError INVALID_CONFIG naming the file, the job and
 * the key, with line and column for syntax errors.
 */
export function parseCronYaml(text: string, source: string): CronConfig {
  return buildCronConfig(readCronYaml(text, source), CRON_YAML_SYNTAX, source);
}

/** Checks cron.yaml syntax and turns it into the format-neutral tree (root `cronentries`). */
export function readCronYaml(text: string, source: string): ConfigNode {
  const doc = parseYamlDocument(text, source);
  const contents = doc.contents;
  // An empty cron.yaml is a file with no jobs, as App Engine's `cron:` with nothing under it.
  if (contents === null || (isScalar(contents) && contents.value === null))
    return configNode('cronentries', 'cronentries', '');
  if (!isMap(contents)) throw configError({ file: source }, 'the top level must be a mapping with a cron list');
  return configNode('cronentries', 'cronentries', '', new CronYamlReader(doc, source).top(contents));
}

/** Walks the YAML AST (not `toJS()`, so that scalars keep their source text). */
class CronYamlReader {
  constructor(
    private readonly doc: Document,
    private readonly file: string,
  ) {}

  top(map: Node): ConfigNode[] {
    const nodes: ConfigNode[] = [];
    if (!isMap(map)) return nodes;
    for (const pair of map.items) {
      const key = this.keyText(pair.key, { file: this.file });
      const value = this.resolve(pair.value);
      if (key !== 'cron') {
        nodes.push(this.valueNode(YAML_KEYS.get(key) ?? null, key, value, { file: this.file }));
        continue;
      }
      if (value === null || (isScalar(value) && value.value === null)) continue;
      if (!isSeq(value)) throw configError({ file: this.file, element: key }, 'cron must be a list of jobs');
      value.items.forEach((item, index) => {
        const location = { file: this.file, jobIndex: index + 1 };
        const job = this.resolve(item);
        if (!isMap(job))
          throw configError(
            { ...location, element: key },
            'each entry of cron must be a mapping with url and schedule',
          );
        nodes.push(configNode('cron', key, '', this.entries(job, location)));
      });
    }
    return nodes;
  }

  private entries(map: Node, location: ConfigErrorLocation): ConfigNode[] {
    if (!isMap(map)) return [];
    return map.items.map((pair) => {
      const key = this.keyText(pair.key, location);
      const name = YAML_KEYS.get(key) ?? null;
      // `cron` inside a job is not a job key: keep it unknown so that the rules report it.
      return this.valueNode(name === 'cron' ? null : name, key, this.resolve(pair.value), location);
    });
  }

  private valueNode(name: string | null, key: string, value: Node | null, location: ConfigErrorLocation): ConfigNode {
    // Unknown key: keep it (without its value) so that the rules report it in context.
    if (value === null || name === null) return configNode(name, key, '');
    if (isMap(value)) return configNode(name, key, '', this.entries(value, location));
    if (isSeq(value)) throw configError({ ...location, element: key }, `${key} must be a single value, not a list`);
    return configNode(name, key, this.scalarText(value));
  }

  private keyText(key: unknown, location: ConfigErrorLocation): string {
    const node = this.resolve(key);
    if (!isScalar(node) || node.value === null) throw configError(location, 'mapping keys must be plain names');
    return this.scalarText(node);
  }

  /** A scalar as written: YAML's `null`/`~`/empty become '', numbers and booleans keep their source text. */
  private scalarText(node: Node): string {
    if (!isScalar(node) || node.value === null) return '';
    const text = typeof node.value === 'string' ? node.value : (node.source ?? String(node.value));
    return text.trim();
  }

  private resolve(node: unknown): Node | null {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return (node.resolve(this.doc) as Node | undefined) ?? null;
    return node as Node;
  }
}
