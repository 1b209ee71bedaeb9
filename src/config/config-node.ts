/**
 * The format-neutral tree that both queue.xml and queue.yaml are turned into
 * before validation. The SDK applies the same rules to both formats; reading
 * each into one shape lets a single validator (`build-service-config.ts`)
 * enforce them, so the two formats cannot drift apart.
 */
export interface ConfigNode {
  /**
   * The element's canonical name, spelled as in queue.xml (`task-retry-limit`),
   * or null when the file used a name that has no canonical meaning (a YAML
   * key spelled with hyphens, say): such nodes are reported as unknown.
   */
  readonly name: string | null;
  /** The name exactly as written in the file, for messages. */
  readonly key: string;
  /** Trimmed text content; '' for empty elements and for containers. */
  readonly text: string;
  /** Child elements in file order; empty for leaves. */
  readonly children: readonly ConfigNode[];
}

/**
 * How one file format names things in messages, so that a queue.yaml user
 * reads `task_retry_limit` and a queue.xml user reads `<task-retry-limit>`.
 */
export interface ConfigSyntax {
  /** How a message shows an element given its key as written: `<rate>` or `rate`. */
  label(key: string): string;
  /** The key this format uses for a canonical name, for elements that are missing. */
  keyFor(name: string): string;
  /** How a message names the document root. */
  readonly rootLabel: string;
  /** What this format calls an element: `element` (XML) or `key` (YAML). */
  readonly elementNoun: string;
}

/** Builds a node; a helper so front ends need not repeat the field list. */
export function configNode(
  name: string | null,
  key: string,
  text: string,
  children: readonly ConfigNode[] = [],
): ConfigNode {
  return { name, key, text, children };
}
