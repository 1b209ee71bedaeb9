import { LineCounter, parseDocument, type Document } from 'yaml';
import { configError } from './config-error.js';

/**
 * Parses a YAML configuration file (queue.yaml, cron.yaml) into its AST, or
 * throws INVALID_CONFIG naming the file, with line and column. Warnings (an
 * unknown `!tag`, say) are errors too: a config file should not half-work.
 * Duplicate keys are refused, so a repeated key never silently wins.
 */
export function parseYamlDocument(text: string, source: string): Document {
  const lineCounter = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    // The library reports most problems in doc.errors; whatever it throws instead still names the file.
    throw configError({ file: source }, `malformed YAML: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem !== undefined) {
    const { line, col } = lineCounter.linePos(problem.pos[0]);
    throw configError({ file: source, line, column: col }, `malformed YAML: ${problem.message}`);
  }
  return doc;
}
