import { isAlias, isMap, isScalar, isSeq, type Document, type Node, type Scalar } from 'yaml';
import { QUEUE_NAME_PATTERN, type ServiceConfig } from '../core/queue-config.js';
import { buildServiceConfig, type ConfigOptions } from './build-service-config.js';
import { configError, type ConfigErrorLocation } from './config-error.js';
import { parseYamlDocument } from './parse-yaml-document.js';
import { configNode, type ConfigNode, type ConfigSyntax } from './config-node.js';

/** queue.yaml keys and the canonical (queue.xml) names they stand for. */
const YAML_KEYS: ReadonlyMap<string, string> = new Map([
  ['total_storage_limit', 'total-storage-limit'],
  ['admin_emails', 'admin-email'],
  ['queue', 'queue'],
  ['name', 'name'],
  ['mode', 'mode'],
  ['rate', 'rate'],
  ['bucket_size', 'bucket-size'],
  ['max_concurrent_requests', 'max-concurrent-requests'],
  ['target', 'target'],
  ['target_url', 'target-url'],
  ['retry_parameters', 'retry-parameters'],
  ['task_retry_limit', 'task-retry-limit'],
  ['task_age_limit', 'task-age-limit'],
  ['min_backoff_seconds', 'min-backoff-seconds'],
  ['max_backoff_seconds', 'max-backoff-seconds'],
  ['max_doublings', 'max-doublings'],
  ['acl', 'acl'],
  ['user_email', 'user-email'],
  ['writer_email', 'writer-email'],
  ['storage_limit', 'storage-limit'],
  ['lease_rate', 'lease-rate'],
]);
/** queue.yaml's top-level `application:` (App Engine's app id): accepted and ignored, as App Engine's tools do now. */
const APPLICATION_KEY = 'application';
const CANONICAL_TO_YAML: ReadonlyMap<string, string> = new Map([...YAML_KEYS].map(([key, name]) => [name, key]));

/** How queue.yaml names things in messages: `task_retry_limit`. */
export const YAML_SYNTAX: ConfigSyntax = {
  label: (key) => key,
  keyFor: (name) => CANONICAL_TO_YAML.get(name) ?? name,
  rootLabel: 'the top level',
  elementNoun: 'key',
};

/**
 * Parses a queue.yaml document into a validated ServiceConfig, with the same
 * rules as queue.xml (see build-service-config.ts). The layout is App
 * Engine's (`queue: [{name, mode, acl: [{user_email}|{writer_email}],
 * retry_parameters: {task_retry_limit}}]`) plus our root `admin_emails` list
 * and the `storage_limit` / `lease_rate` queue keys.
 *
 * Scalars are taken as written (`007` stays `007`, `~` is empty), so YAML's
 * type guessing cannot change what a value means compared with queue.xml.
 *
 * Throws QueueError INVALID_CONFIG naming the file, queue and key, with
 * line and column for syntax errors.
 */
export function parseQueueYaml(text: string, source: string, options: ConfigOptions = {}): ServiceConfig {
  return buildServiceConfig(readQueueYaml(text, source), YAML_SYNTAX, source, options);
}

/** Checks queue.yaml syntax and turns it into the format-neutral tree. */
export function readQueueYaml(text: string, source: string): ConfigNode {
  const doc = parseYamlDocument(text, source);
  const reader = new YamlReader(doc, source);
  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) {
    throw configError({ file: source }, 'the file is empty; expected a mapping with a queue list');
  }
  if (!isMap(contents)) {
    throw configError({ file: source }, 'the top level must be a mapping (total_storage_limit, admin_emails, queue)');
  }
  return configNode('queue-entries', 'queue-entries', '', reader.entries(contents, { file: source }, true));
}

/** Walks the YAML AST (not `toJS()`, so that scalars keep their source text). */
class YamlReader {
  constructor(
    private readonly doc: Document,
    private readonly file: string,
  ) {}

  /** The children of a mapping, with list-valued keys (`queue`, `admin_emails`, `acl`) unfolded. */
  entries(map: Node, location: ConfigErrorLocation, root = false): ConfigNode[] {
    const nodes: ConfigNode[] = [];
    if (!isMap(map)) return nodes;
    for (const pair of map.items) {
      const key = this.keyText(pair.key, location);
      const name = YAML_KEYS.get(key) ?? null;
      const value = this.resolve(pair.value);
      if (root && key === APPLICATION_KEY) {
        // App Engine accepts (and no longer needs) the app id here; the project is TASKQUEUE_PROJECT's.
        if (isMap(value) || isSeq(value))
          throw configError({ ...location, element: key }, `${key} must be a single value (the App Engine app id)`);
      } else if (name === null) {
        // Unknown key: keep it (without its value) so the shared rules report it in context.
        nodes.push(configNode(null, key, ''));
      } else if (name === 'queue') {
        this.listItems(value, key, location, 'a list of queues').forEach((item, index) => {
          const queueLocation = this.queueLocation(item, index + 1);
          if (!isMap(item))
            throw configError({ ...queueLocation, element: key }, `each entry of ${key} must be a mapping with a name`);
          nodes.push(configNode(name, key, '', this.entries(item, queueLocation)));
        });
      } else if (name === 'admin-email') {
        for (const item of this.listItems(value, key, location, 'a list of e-mail addresses')) {
          nodes.push(this.valueNode(name, key, item, location));
        }
      } else if (name === 'acl') {
        const children: ConfigNode[] = [];
        for (const item of this.listItems(value, key, location, 'a list of user_email / writer_email entries')) {
          if (!isMap(item)) {
            throw configError(
              { ...location, element: key },
              `each entry of ${key} must be a user_email or writer_email mapping`,
            );
          }
          children.push(...this.entries(item, location));
        }
        nodes.push(configNode(name, key, '', children));
      } else {
        nodes.push(this.valueNode(name, key, value, location));
      }
    }
    return nodes;
  }

  private valueNode(name: string | null, key: string, value: Node | null, location: ConfigErrorLocation): ConfigNode {
    if (value === null) return configNode(name, key, '');
    if (isMap(value)) return configNode(name, key, '', this.entries(value, location));
    if (isSeq(value)) throw configError({ ...location, element: key }, `${key} must be a single value, not a list`);
    return configNode(name, key, this.scalarText(value));
  }

  private listItems(value: Node | null, key: string, location: ConfigErrorLocation, expected: string): (Node | null)[] {
    if (value === null || (isScalar(value) && value.value === null)) return [];
    if (!isSeq(value)) throw configError({ ...location, element: key }, `${key} must be ${expected}`);
    return value.items.map((item) => this.resolve(item as Node | null));
  }

  /**
   * Names the queue in messages about its own keys: by its `name` when that
   * is a valid plain value, else by its position, as the shared rules do.
   */
  private queueLocation(map: Node | null, queueIndex: number): ConfigErrorLocation {
    if (isMap(map)) {
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        const value = this.resolve(pair.value);
        if (key !== 'name' || !isScalar(value)) continue;
        const name = this.scalarText(value);
        if (QUEUE_NAME_PATTERN.test(name)) return { file: this.file, queue: name };
      }
    }
    return { file: this.file, queueIndex };
  }

  private keyText(key: unknown, location: ConfigErrorLocation): string {
    const node = this.resolve(key as Node | null);
    if (!isScalar(node) || node.value === null) {
      throw configError(location, 'mapping keys must be plain names');
    }
    return this.scalarText(node);
  }

  /** A scalar as written: YAML's `null`/`~`/empty become '', numbers and booleans keep their source text. */
  private scalarText(node: Node): string {
    if (!isScalar(node) || node.value === null) return '';
    const scalar: Scalar = node;
    const text = typeof scalar.value === 'string' ? scalar.value : (scalar.source ?? String(scalar.value));
    return text.trim();
  }

  private resolve(node: unknown): Node | null {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return (node.resolve(this.doc) as Node | undefined) ?? null;
    return node as Node;
  }
}
