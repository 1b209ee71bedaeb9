import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { ServiceConfig } from '../core/queue-config.js';
import { buildServiceConfig, type ConfigOptions } from './build-service-config.js';
import { configError } from './config-error.js';
import { configNode, type ConfigNode, type ConfigSyntax } from './config-node.js';

/** How queue.xml names things in messages: `<task-retry-limit>`. */
export const XML_SYNTAX: ConfigSyntax = {
  label: (key) => `<${key}>`,
  keyFor: (name) => name,
  rootLabel: '<queue-entries>',
  elementNoun: 'element',
};

/**
 * fast-xml-parser options, chosen after the pitfalls in libraries-evaluated §6:
 * - `preserveOrder` yields every element as an array entry, so a single
 *   `<user-email>` is never collapsed into a string (what `isArray` fixes in
 *   the default mode) and a repeated `<name>` stays visible as a duplicate;
 * - `parseTagValue: false` keeps `007` and `1e3` as written, so our own
 *   checks decide what a number is;
 * - `processEntities: false` never expands entities (DOCTYPE is rejected
 *   before parsing anyway, see `findDoctype`).
 */
const PARSER = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/** An entity or character reference left in text because `processEntities` is off. */
const ENTITY_REFERENCE = /&(#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z_][\w.-]*);/;

/**
 * Parses a queue.xml document (App Engine's format plus our `<admin-email>`,
 * `<storage-limit>` and `<lease-rate>` extensions) into a validated
 * ServiceConfig. `source` names the file in messages and becomes the
 * result's `source`.
 *
 * The text is always checked with XMLValidator first, because the parser
 * alone turns malformed input (unclosed tags, two roots, bare `&`) into
 * plausible objects without complaint.
 *
 * Throws QueueError INVALID_CONFIG naming the file, queue and element, with
 * line and column for syntax errors.
 */
export function parseQueueXml(text: string, source: string, options: ConfigOptions = {}): ServiceConfig {
  return buildServiceConfig(readQueueXml(text, source), XML_SYNTAX, source, options);
}

/** Checks queue.xml syntax and turns it into the format-neutral tree (root `<queue-entries>`). */
export function readQueueXml(text: string, source: string): ConfigNode {
  return readXmlDocument(text, source, { root: 'queue-entries', fileLabel: 'queue.xml' });
}

/** What an XML configuration file is: its root element and how messages call the file. */
export interface XmlDocumentKind {
  /** The one root element: `queue-entries`, `cronentries`. */
  readonly root: string;
  /** `queue.xml`, `cron.xml`. */
  readonly fileLabel: string;
}

/**
 * Checks the syntax of an XML configuration file (queue.xml, cron.xml) and
 * turns it into the format-neutral tree. No DOCTYPE, entities, attributes or
 * mixed content; exactly one root, of the expected name.
 */
export function readXmlDocument(text: string, source: string, kind: XmlDocumentKind): ConfigNode {
  const { root, fileLabel } = kind;
  if (text.trim() === '') {
    throw configError({ file: source }, `the file is empty; expected a <${root}> document`);
  }
  const doctype = findDoctype(text);
  if (doctype !== undefined) {
    throw configError(
      { file: source, ...lineAndColumn(text, doctype) },
      `DOCTYPE and ENTITY declarations are not allowed in ${fileLabel}`,
    );
  }
  const verdict = XMLValidator.validate(text);
  if (verdict !== true) {
    const { msg, line, col } = verdict.err;
    throw configError({ file: source, line, column: col }, `malformed XML: ${msg}`);
  }
  let top: readonly XmlEntry[];
  try {
    top = PARSER.parse(text) as unknown as readonly XmlEntry[];
  } catch (error) {
    // The parser refuses some documents the validator passes (nesting too
    // deep, element names such as <__proto__>) with a plain Error: name the file.
    throw configError({ file: source }, `malformed XML: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  // XMLValidator 5.12.1 accepts `<a/><b/>` and `<a/>text`; a document has exactly one root and nothing beside it.
  const roots = top.filter((entry) => elementName(entry) !== undefined);
  if (roots.length > 1) {
    throw configError({ file: source }, `malformed XML: more than one root element; expected a single <${root}>`);
  }
  const rootEntry = roots[0];
  const rootName = rootEntry === undefined ? undefined : elementName(rootEntry);
  if (rootEntry === undefined || rootName === undefined) {
    throw configError({ file: source }, `no root element; expected <${root}>`);
  }
  const rootContent = rootEntry[rootName];
  if (Array.isArray(rootContent) && rootContent.length === 0) {
    // The parser drops text after a self-closing root, so look at the text itself.
    const stray = textOutsideMarkup(text);
    if (stray !== undefined) {
      throw configError({ file: source }, `malformed XML: text "${stray}" outside the root element`);
    }
  }
  if (rootName !== root) {
    throw configError({ file: source, element: rootName }, `the root element must be <${root}>, got <${rootName}>`);
  }
  return toNode(source, rootEntry, rootName, fileLabel);
}

/** One entry of fast-xml-parser's preserveOrder output: `{tag: [...children], ':@': {attrs}}` or `{'#text': '...'}`. */
type XmlEntry = Readonly<Record<string, unknown>>;

function elementName(entry: XmlEntry): string | undefined {
  return Object.keys(entry).find((key) => key !== ':@' && key !== '#text');
}

function toNode(file: string, entry: XmlEntry, name: string, fileLabel: string): ConfigNode {
  const attributes = entry[':@'];
  if (attributes !== undefined && attributes !== null && typeof attributes === 'object') {
    const first = Object.keys(attributes)[0] ?? '';
    throw configError(
      { file, element: name },
      `attributes are not allowed in ${fileLabel}, found ${first}="..." on <${name}>`,
    );
  }
  const content = entry[name];
  const texts: string[] = [];
  const children: ConfigNode[] = [];
  for (const child of Array.isArray(content) ? (content as XmlEntry[]) : []) {
    const childName = elementName(child);
    if (childName !== undefined) {
      children.push(toNode(file, child, childName, fileLabel));
    } else {
      const value = String(child['#text'] ?? '').trim();
      if (value !== '') texts.push(value);
    }
  }
  const text = texts.join(' ');
  const reference = ENTITY_REFERENCE.exec(text);
  if (reference !== null) {
    throw configError(
      { file, element: name },
      `<${name}> contains the reference "${reference[0]}"; entity and character references are not supported`,
    );
  }
  return configNode(name, name, text, children);
}

/**
 * Offset of a `<!DOCTYPE` or `<!ENTITY` declaration outside comments and
 * CDATA, if any. A configuration file never needs one, and refusing them outright closes
 * the door on entity-expansion tricks whatever the parser's settings.
 */
function findDoctype(text: string): number | undefined {
  const masked = text.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>/g, (hidden) => hidden.replace(/[^\n]/g, ' '));
  const match = /<!(DOCTYPE|ENTITY)/i.exec(masked);
  return match?.index;
}

/**
 * Non-blank text left once comments, processing instructions, CDATA and tags
 * are removed. Only meaningful for a document whose root is empty, where any
 * such text must lie outside the root.
 */
function textOutsideMarkup(text: string): string | undefined {
  const rest = text
    .replace(/<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[[\s\S]*?\]\]>/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\uFEFF/g, ' ')
    .trim();
  return rest === '' ? undefined : rest;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return { line, column };
}
