/**
 * Splits a migration file into its statements, at each `;` that is outside
 * quotes and comments: '...' strings (with '' inside, and E'...' with
 * backslash escapes), "..." identifiers, $tag$...$tag$ bodies (functions and
 * DO blocks), -- line comments and nested /* block comments *\/. Statements
 * keep their own text, comments included; pieces holding nothing but
 * comments and blanks are dropped.
 *
 * Why: migrate.ts runs one statement per query. Citus plans a multi-statement
 * query string as one unit and, with schema-based sharding, fails on it
 * (docs/scaling.md). SQL-standard bodies (BEGIN ATOMIC ... END) hold bare
 * semicolons and are not recognised: migrations write bodies dollar-quoted
 * (a test splits every file of sql/ and checks each piece parses alone).
 */
export function splitSql(text: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let meaningful = false;
  let i = 0;
  const n = text.length;
  const identChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_$]/.test(c);
  while (i < n) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (c === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (text[i] === '/' && text[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (text[i] === '*' && text[i + 1] === '/') {
          depth--;
          i += 2;
        } else i++;
      }
      continue;
    }
    if (c === ';') {
      if (meaningful) statements.push(text.slice(start, i + 1).trim());
      start = i + 1;
      meaningful = false;
      i++;
      continue;
    }
    if (!/\s/.test(c)) meaningful = true;
    if (c === "'") {
      const escapes = (text[i - 1] === 'E' || text[i - 1] === 'e') && !identChar(text[i - 2]);
      i = endOfQuoted(text, i + 1, "'", escapes);
      continue;
    }
    if (c === '"') {
      i = endOfQuoted(text, i + 1, '"', false);
      continue;
    }
    if (c === '$' && !identChar(text[i - 1])) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(text.slice(i, i + 64))?.[0];
      if (tag !== undefined) {
        const end = text.indexOf(tag, i + tag.length);
        if (end < 0) throw new Error(`unterminated dollar-quoted text ${tag} at offset ${i}`);
        i = end + tag.length;
        continue;
      }
    }
    i++;
  }
  if (meaningful) statements.push(text.slice(start).trim());
  return statements;
}

/** The offset just past the closing quote of a quoted run that opened before `from`. */
function endOfQuoted(text: string, from: number, quote: string, backslashEscapes: boolean): number {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (backslashEscapes && c === '\\') {
      i += 2;
      continue;
    }
    if (c === quote) {
      if (text[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  throw new Error(`unterminated ${quote === "'" ? 'string' : 'quoted identifier'} at offset ${from - 1}`);
}
