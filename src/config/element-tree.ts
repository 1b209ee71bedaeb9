import { isQueueError } from '../core/errors.js';
import { configError, type ConfigErrorLocation } from './config-error.js';
import type { ConfigNode, ConfigSyntax } from './config-node.js';

/**
 * The helpers both configuration builders (queue files and cron files) walk
 * their format-neutral trees with, so the two files reject unknown keys,
 * repeated keys and stray text in the same words.
 */

/** What every check needs to report a problem: the file, the syntax, and where we are. */
export interface Scope {
  readonly syntax: ConfigSyntax;
  readonly location: ConfigErrorLocation;
}

export const NON_NEGATIVE_INTEGER = /^[0-9]+$/;
export const NON_NEGATIVE_DECIMAL = /^[0-9]+(\.[0-9]*)?$/;
/** The suffixes of App Engine's durations (`task_age_limit: 2d`, `job_age_limit: 3h`). */
export const AGE_UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };

/**
 * Checks a container's children (known names only, at most one of each
 * non-repeatable name, no stray text) and groups them by canonical name.
 * Unknown elements are errors because a misspelt `<task-retry-limt>` would
 * otherwise silently leave a queue without its limit.
 */
export function groupChildren(
  scope: Scope,
  node: ConfigNode,
  containerLabel: string,
  allowed: ReadonlySet<string>,
  repeatable: ReadonlySet<string>,
): Map<string, ConfigNode[]> {
  checkNoText(scope, node, containerLabel);
  const { syntax } = scope;
  const groups = new Map<string, ConfigNode[]>();
  for (const child of node.children) {
    if (child.name === null || !allowed.has(child.name)) {
      fail(scope, `unknown ${syntax.elementNoun} ${syntax.label(child.key)} in ${containerLabel}`, {
        element: child.key,
      });
    }
    const group = groups.get(child.name);
    if (group === undefined) {
      groups.set(child.name, [child]);
    } else if (repeatable.has(child.name)) {
      group.push(child);
    } else {
      fail(scope, `${syntax.label(child.key)} appears more than once in ${containerLabel}`, { element: child.key });
    }
  }
  return groups;
}

export function checkNoText(scope: Scope, node: ConfigNode, containerLabel: string): void {
  if (node.text !== '') {
    fail(scope, `unexpected text "${node.text}" in ${containerLabel}`, { element: node.key });
  }
}

/** A value element's text; values never contain elements. */
export function leafText(scope: Scope, node: ConfigNode): string {
  const first = node.children[0];
  if (first !== undefined) {
    fail(scope, `${scope.syntax.label(node.key)} must hold a single value, not ${scope.syntax.label(first.key)}`, {
      element: node.key,
    });
  }
  return node.text;
}

/** Runs a value parser and re-raises its predicate message prefixed with the file, queue and element. */
export function withElement<T>(scope: Scope, node: ConfigNode, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!isQueueError(error, 'INVALID_CONFIG')) throw error;
    return fail(scope, `${scope.syntax.label(node.key)} ${error.message}`, { element: node.key }, error);
  }
}

export function fail(scope: Scope, message: string, extra: Partial<ConfigErrorLocation> = {}, cause?: unknown): never {
  throw configError({ ...scope.location, ...extra }, message, cause === undefined ? undefined : { cause });
}
