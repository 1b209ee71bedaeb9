import { createHash } from 'node:crypto';

/** A label at the head of a statement: `/* lease_tasks *\/ with ...`. */
const LABEL = /^\s*\/\*\s*([a-z][a-z0-9_]{0,39})\s*\*\//;

const names = new Map<string, string>();

/**
 * The prepared-statement name of a statement text, as operators see it in
 * pg_prepared_statements (and the label in pg_stat_statements' text):
 * `taskqueue_<label>_<12 hex digits of the text's SHA-1>`. The label is the
 * comment every runtime query of src/store opens with (its name), else the
 * statement's first word; the digest keeps apart the texts of one label
 * (schemas, optional clauses), so two texts never share a name. At most 63
 * bytes, PostgreSQL's identifier length. Memoised.
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    const label = LABEL.exec(text)?.[1] ?? /^\s*([a-z]+)/i.exec(text)?.[1]?.toLowerCase() ?? 'statement';
    name = `taskqueue_${label}_${createHash('sha1').update(text).digest('hex').slice(0, 12)}`;
    // Bounded: texts differ by schema and shape only, but never grow without limit.
    if (names.size > 10_000) names.clear();
    names.set(text, name);
  }
  return name;
}
