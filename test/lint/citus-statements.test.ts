import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Every runtime statement of src/ keeps to what Citus can run (docs/scaling.md,
 * "What runs on Citus, and how it is tested"): no function that is not IMMUTABLE
 *
 *   1. in ON CONFLICT ... DO UPDATE SET (Citus: "functions used in the DO
 *      UPDATE SET clause of INSERTs on distributed tables must be marked
 *      IMMUTABLE"): take `excluded.<column>`, whose default is now();
 *   2. inside CASE or COALESCE of an UPDATE's SET ("non-IMMUTABLE functions
 *      are not allowed in CASE or COALESCE statements"): write two
 *      statement shapes;
 *   3. in RETURNING ("non-IMMUTABLE functions are not allowed in the
 *      RETURNING clause"): extract(epoch from <timestamptz>) is STABLE,
 *      extract(epoch from (x - timestamptz 'epoch')) is IMMUTABLE;
 *
 * and no LATERAL read keyed by an outer row's column (`queue_id = q.id`, or
 * a function given `q.id`): joined per row to the reference table `queues`,
 * Citus cannot plan it ("complex joins are only supported when all
 * distributed tables are co-located and joined on their distribution
 * columns"), and a function reading a distributed table cannot run in a
 * statement pushed to a worker. Name the queue's id as a value instead, a
 * statement per queue on Citus (queue-overview.ts, queue-attention.ts: their
 * key is given in, `q.id` on PostgreSQL only, where one statement reads all).
 *
 * The statements are read from the source (each `sql` template, with the
 * templates of small helpers such as usecOf inlined where they are called),
 * so a statement is checked whether or not a test runs it. Kysely builder
 * calls are checked where they can carry a function: a `sql` template given
 * to doUpdateSet.
 */

const ROOT = new URL('../..', import.meta.url).pathname;

/** Functions PostgreSQL marks STABLE or VOLATILE that statements are likely to call. */
const NOT_IMMUTABLE = new Set([
  'now',
  'current_timestamp',
  'localtimestamp',
  'current_date',
  'current_time',
  'clock_timestamp',
  'statement_timestamp',
  'transaction_timestamp',
  'timeofday',
  'random',
  'gen_random_uuid',
  'nextval',
  'current_setting',
  'pg_backend_pid',
  'extract',
  'date_part',
  'date_trunc',
  'to_char',
  'age',
]);
/** SQL's special forms called without parentheses. */
const BARE = new Set(['current_timestamp', 'localtimestamp', 'current_date', 'current_time']);

interface Statement {
  readonly file: string;
  readonly line: number;
  readonly text: string;
  /** Given to Kysely's doUpdateSet: the whole text is a SET value. */
  readonly inDoUpdateSet: boolean;
}

interface Finding {
  readonly where: string;
  readonly rule: 'on-conflict-set' | 'case-coalesce' | 'returning' | 'lateral-per-row';
  readonly call: string;
  readonly clause: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && entry.name !== 'migrations.ts' ? [path] : [];
  });
}

function isSqlTemplate(node: ts.Node): node is ts.TaggedTemplateExpression {
  if (!ts.isTaggedTemplateExpression(node)) return false;
  const tag = node.tag;
  return (
    (ts.isIdentifier(tag) && tag.text === 'sql') ||
    (ts.isCallExpression(tag) && ts.isIdentifier(tag.expression) && tag.expression.text === 'sql')
  );
}

/** Every `sql` template of src/, and the templates functions return (to inline where they are called). */
function collect(): { statements: Statement[]; helpers: Map<string, ts.TaggedTemplateExpression> } {
  const statements: Statement[] = [];
  const helpers = new Map<string, ts.TaggedTemplateExpression>();
  const parsed: { file: string; source: ts.SourceFile; templates: ts.TaggedTemplateExpression[] }[] = [];
  for (const path of sourceFiles(join(ROOT, 'src'))) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const templates: ts.TaggedTemplateExpression[] = [];
    const visit = (node: ts.Node): void => {
      if (isSqlTemplate(node)) templates.push(node);
      if (ts.isFunctionDeclaration(node) && node.name && node.body) {
        // The longest template the function returns (auditedCte returns sql`` when there is nothing to audit).
        let best: ts.TaggedTemplateExpression | undefined;
        const find = (n: ts.Node): void => {
          if (ts.isReturnStatement(n) && n.expression && isSqlTemplate(n.expression)) {
            if (!best || n.expression.getText().length > best.getText().length) best = n.expression;
          }
          if (!ts.isFunctionLike(n)) ts.forEachChild(n, find);
        };
        ts.forEachChild(node.body, find);
        if (best) helpers.set(node.name.text, best);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    parsed.push({ file: relative(ROOT, path), source, templates });
  }
  for (const { file, source, templates } of parsed) {
    for (const template of templates) {
      let inDoUpdateSet = false;
      for (let p: ts.Node | undefined = template.parent; p; p = p.parent) {
        if (
          ts.isCallExpression(p) &&
          ts.isPropertyAccessExpression(p.expression) &&
          p.expression.name.text === 'doUpdateSet'
        )
          inDoUpdateSet = true;
      }
      statements.push({
        file,
        line: source.getLineAndCharacterOfPosition(template.getStart()).line + 1,
        text: render(template, helpers, 0),
        inDoUpdateSet,
      });
    }
  }
  return { statements, helpers };
}

/** A template's SQL: bound values become $n; a call of a helper that returns a template is inlined. */
function render(
  template: ts.TaggedTemplateExpression,
  helpers: Map<string, ts.TaggedTemplateExpression>,
  depth: number,
): string {
  const t = template.template;
  if (ts.isNoSubstitutionTemplateLiteral(t)) return t.text;
  let text = t.head.text;
  t.templateSpans.forEach((span, i) => {
    const e = span.expression;
    const helper = ts.isCallExpression(e) && ts.isIdentifier(e.expression) ? helpers.get(e.expression.text) : undefined;
    text += helper && depth < 3 ? render(helper, helpers, depth + 1) : ` $${i + 1} `;
    text += span.literal.text;
  });
  return text;
}

type Token = { readonly text: string; readonly kind: 'word' | 'punct' | 'string' };

/** Words (lower case), punctuation and string literals; comments and blanks dropped. */
function tokens(sql: string): Token[] {
  const out: Token[] = [];
  const re =
    /(--[^\n]*)|(\/\*[\s\S]*?\*\/)|('(?:[^']|'')*')|("(?:[^"]|"")*")|(\$\d+)|([A-Za-z_][A-Za-z0-9_$]*)|(::|[(),;.=+\-*/<>|])|(\s+)|(.)/g;
  for (const m of sql.matchAll(re)) {
    if (m[1] || m[2] || m[8]) continue;
    if (m[3]) out.push({ text: m[3], kind: 'string' });
    else if (m[4] || m[6]) out.push({ text: (m[4] ?? m[6]!).toLowerCase(), kind: 'word' });
    else out.push({ text: m[0], kind: 'punct' });
  }
  return out;
}

/** The end (exclusive) of a clause starting at `from`, at paren depth 0 relative to it: a closing paren, `;`, or a stop word. */
function clauseEnd(toks: Token[], from: number, stops: ReadonlySet<string>): number {
  let depth = 0;
  for (let i = from; i < toks.length; i++) {
    const t = toks[i]!.text;
    if (t === '(') depth++;
    else if (t === ')') {
      if (depth === 0) return i;
      depth--;
    } else if (depth === 0 && (t === ';' || (toks[i]!.kind === 'word' && stops.has(t)))) return i;
  }
  return toks.length;
}

function matchingParen(toks: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < toks.length; i++) {
    if (toks[i]!.text === '(') depth++;
    else if (toks[i]!.text === ')' && --depth === 0) return i;
  }
  return toks.length - 1;
}

/** Calls of functions that are not IMMUTABLE in toks[from, to). */
function mutableCalls(toks: Token[], from: number, to: number): string[] {
  const found: string[] = [];
  for (let i = from; i < to; i++) {
    const t = toks[i]!;
    if (
      t.kind !== 'word' ||
      !NOT_IMMUTABLE.has(t.text) ||
      (toks[i - 1]?.text === '.' && toks[i - 2]?.text !== 'pg_catalog')
    )
      continue;
    const called = toks[i + 1]?.text === '(';
    if (!called && !BARE.has(t.text)) continue;
    if (t.text === 'extract' && called) {
      // extract(field from (x - timestamptz 'epoch')) takes an interval: IMMUTABLE.
      const close = matchingParen(toks, i + 1);
      const body = toks
        .slice(i + 2, close)
        .map((x) => x.text)
        .join(' ');
      if (/ from \( .* - timestamptz 'epoch' \)$/.test(` ${body}`)) continue;
    }
    found.push(called ? `${t.text}()` : t.text);
  }
  return found;
}

function excerpt(toks: Token[], from: number, to: number): string {
  const text = toks
    .slice(from, to)
    .map((t) => t.text)
    .join(' ')
    .replace(/ ([),.]|::)/g, '$1')
    .replace(/([(.]|::) /g, '$1');
  return text.length > 140 ? `${text.slice(0, 137)}...` : text;
}

/**
 * The per-row keys of the LATERAL item at toks[at]: `queue_id = <alias>.<column>`
 * (either way round) inside a LATERAL subquery, or `<alias>.<column>` given to
 * a LATERAL function.
 */
function lateralPerRow(toks: Token[], at: number): string[] {
  const isColumn = (i: number) => toks[i]?.kind === 'word' && toks[i + 1]?.text === '.' && toks[i + 2]?.kind === 'word';
  const column = (i: number) => `${toks[i]!.text}.${toks[i + 2]!.text}`;
  if (toks[at + 1]?.text === '(') {
    const close = matchingParen(toks, at + 1);
    // Aliases of the tables read inside: `from|join <table> [as] <alias>` (a column of one of them is no outer row).
    const inner = new Set<string>();
    for (let i = at + 2; i < close; i++) {
      if (toks[i]!.text !== 'from' && toks[i]!.text !== 'join') continue;
      let n = i + 1;
      if (toks[n + 1]?.text === '.') n += 2;
      inner.add(toks[n]!.text);
      const alias = toks[n + 1]?.text === 'as' ? toks[n + 2] : toks[n + 1];
      if (alias?.kind === 'word') inner.add(alias.text);
    }
    // Also restricted by value (`queue_id = any($n)`, `queue_id = $n`): Citus routes it to that shard whole.
    for (let i = at + 2; i < close; i++) {
      const value = toks[i + 2]?.text === 'any' || /^\$\d+$/.test(toks[i + 2]?.text ?? '');
      if (toks[i]!.text === 'queue_id' && toks[i + 1]?.text === '=' && value) return [];
    }
    const outer = (i: number) => isColumn(i) && !inner.has(toks[i]!.text);
    const found: string[] = [];
    for (let i = at + 2; i < close; i++) {
      if (toks[i]!.text !== '=') continue;
      const left = isColumn(i - 3) ? i - 3 : i - 1;
      const leftIsKey = toks[i - 1]?.text === 'queue_id';
      const rightIsKey = toks[i + 1]?.text === 'queue_id' || (isColumn(i + 1) && toks[i + 3]?.text === 'queue_id');
      if (leftIsKey && outer(i + 1)) found.push(`queue_id = ${column(i + 1)}`);
      else if (rightIsKey && outer(left)) found.push(`${column(left)} = queue_id`);
    }
    return found;
  }
  // LATERAL [schema.]fn(args): a function per row of the outer item.
  let name = at + 1;
  if (toks[name + 1]?.text === '.') name += 2;
  if (toks[name]?.kind !== 'word' || toks[name + 1]?.text !== '(') return [];
  const close = matchingParen(toks, name + 1);
  for (let i = name + 2; i < close; i++) if (isColumn(i)) return [`${toks[name]!.text}(${column(i)})`];
  return [];
}

/** What a statement does that Citus refuses. */
function citusFindings(where: string, text: string, inDoUpdateSet = false): Finding[] {
  const toks = tokens(text);
  const findings: Finding[] = [];
  if (inDoUpdateSet) {
    for (const call of mutableCalls(toks, 0, toks.length))
      findings.push({ where, rule: 'on-conflict-set', call, clause: excerpt(toks, 0, toks.length) });
  }
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.kind !== 'word') continue;
    if (t.text === 'lateral') {
      for (const call of lateralPerRow(toks, i))
        findings.push({
          where,
          rule: 'lateral-per-row',
          call,
          clause: excerpt(toks, i, Math.min(toks.length, i + 24)),
        });
    }
    if (t.text === 'returning') {
      const end = clauseEnd(toks, i + 1, new Set());
      for (const call of mutableCalls(toks, i + 1, end))
        findings.push({ where, rule: 'returning', call, clause: excerpt(toks, i, end) });
    }
    if (t.text === 'set') {
      // The SET of an UPDATE: `update <table> [[as] alias] set`, or `do update set`.
      const back = toks.slice(Math.max(0, i - 8), i).map((x) => x.text);
      const u = back.lastIndexOf('update');
      if (u < 0 || back.slice(u + 1).some((x) => x === '(' || x === ')' || x === ';' || x === 'set')) continue;
      const onConflict = back[u - 1] === 'do';
      const end = clauseEnd(toks, i + 1, new Set(['from', 'where', 'returning']));
      if (onConflict) {
        for (const call of mutableCalls(toks, i + 1, end))
          findings.push({ where, rule: 'on-conflict-set', call, clause: excerpt(toks, i, end) });
      }
      for (let j = i + 1; j < end; j++) {
        const w = toks[j]!.text;
        let close = -1;
        if (w === 'coalesce' && toks[j + 1]?.text === '(') close = matchingParen(toks, j + 1);
        if (w === 'case') {
          let nested = 0;
          for (let k = j; k < end; k++) {
            if (toks[k]!.text === 'case') nested++;
            else if (toks[k]!.text === 'end' && --nested === 0) {
              close = k;
              break;
            }
          }
        }
        if (close < 0) continue;
        // Inside DO UPDATE SET the rule above has reported the call already.
        if (onConflict) continue;
        for (const call of mutableCalls(toks, j + 1, close))
          findings.push({ where, rule: 'case-coalesce', call, clause: excerpt(toks, j, close + 1) });
      }
    }
  }
  return findings;
}

function label(text: string): string {
  return /^\s*\/\*\s*([a-z][a-z0-9_]*)\s*\*\//.exec(text)?.[1] ?? '(fragment)';
}

const ADVICE: Record<Finding['rule'], string> = {
  'on-conflict-set': 'set the column from excluded.<column> and let its default supply the value',
  'case-coalesce': 'write one statement shape per branch (see set-paused.ts)',
  returning: "return an IMMUTABLE expression, e.g. extract(epoch from (x - timestamptz 'epoch')) for a timestamptz",
  'lateral-per-row': "name the queue's id as a bound value, a statement per queue on Citus (see queue-overview.ts)",
};

/**
 * Statements of other parts of the code that still break a rule, each with
 * who changes it (docs/scaling.md lists them). An entry that no longer
 * matches anything fails the test, so the list only shrinks: remove it when
 * its statement is fixed.
 */
const PENDING: readonly string[] = [];

/**
 * Statements on tables that stay local to the Citus coordinator (never
 * distributed nor replicated), where Citus's rules for distributed
 * modifications do not apply.
 */
const COORDINATOR_ONLY: readonly string[] = [
  // auth_signing_keys: a handful of rows read and written by the service only.
  'src/store/auth-signing-keys.ts signing_key_retire case-coalesce now()',
];

/**
 * Statements whose per-row LATERAL reads are restricted by value on Citus
 * through a fragment (this check reads it as a bound value): there they run
 * a shard's queues at a time, with `and queue_id = any(<the shard's ids>)`
 * in each read; on PostgreSQL, one statement for every queue.
 */
const RESTRICTED_ON_CITUS: readonly string[] = [
  'src/store/queue-attention.ts queue_attention lateral-per-row queue_id = q.id',
  'src/store/queue-overview.ts queue_overview lateral-per-row queue_id = s.queue_id',
];

function key(f: Finding): string {
  return `${f.where.replace(/:\d+ /, ' ')} ${f.rule} ${f.call}`;
}

describe('statements Citus can run', () => {
  const { statements } = collect();

  it('reads the statements of src/', () => {
    expect(statements.length).toBeGreaterThan(100);
    expect(statements.some((s) => label(s.text) === 'sync_queues')).toBe(true);
  });

  it('no runtime statement calls a non-IMMUTABLE function in DO UPDATE SET, CASE/COALESCE of an UPDATE, or RETURNING, or reads LATERAL per row', () => {
    const findings = statements.flatMap((s) =>
      citusFindings(`${s.file}:${s.line} ${label(s.text)}`, s.text, s.inDoUpdateSet),
    );
    const allowed = [...PENDING, ...COORDINATOR_ONLY, ...RESTRICTED_ON_CITUS];
    const broken = findings.filter((f) => !allowed.includes(key(f)));
    const report = broken.map((f) => `${f.where}: ${f.call} in ${f.rule}: "${f.clause}" -> ${ADVICE[f.rule]}`);
    expect(report, 'statements Citus refuses (docs/scaling.md)').toEqual([]);
    const stale = allowed.filter((p) => !findings.some((f) => key(f) === p));
    expect(stale, 'PENDING or COORDINATOR_ONLY entries that no longer match anything: remove them').toEqual([]);
  });

  it('finds each rule, and passes the Citus-ready shapes', () => {
    const f = (text: string, inDoUpdateSet = false) =>
      citusFindings('probe', text, inDoUpdateSet).map((x) => `${x.rule} ${x.call}`);
    expect(
      f(`insert into t (a) values (1) on conflict (a) do update set at = now(), b = excluded.b returning a`),
    ).toEqual(['on-conflict-set now()']);
    expect(
      f(`insert into t (a) values (1) on conflict (a) do update set at = excluded.at where t.at < now() returning a`),
    ).toEqual([]);
    expect(
      f(`update q set paused = $1, paused_at = case when $2 then coalesce(paused_at, now()) end where id = $3`),
    ).toEqual(['case-coalesce now()', 'case-coalesce now()']);
    expect(f(`update q set paused = true, paused_at = now() where id = $1 and not paused`)).toEqual([]);
    expect(
      f(
        `with x as (update t set eta = now() + $1 where id = $2 returning (extract(epoch from eta) * 1000000)::int8) select 1`,
      ),
    ).toEqual(['returning extract()']);
    expect(
      f(`update t set eta = now() returning (extract(epoch from (eta - timestamptz 'epoch')) * 1000000)::int8 as u`),
    ).toEqual([]);
    expect(f(`delete from t where id = 1 returning id, current_timestamp`)).toEqual(['returning current_timestamp']);
    expect(f('now()', true)).toEqual(['on-conflict-set now()']);
    expect(f(`select now(), coalesce(a, now()) from t where b = 'returning now()'`)).toEqual([]);
    expect(
      f(
        `select * from queues q cross join lateral (select count(*) from tasks where queue_id = q.id) c where q.id = 1`,
      ),
    ).toEqual(['lateral-per-row queue_id = q.id']);
    expect(
      f(`select * from queues q left join lateral (select 1 from p where s.queue_id = queue_id) b on true`),
    ).toEqual(['lateral-per-row s.queue_id = queue_id']);
    expect(f(`select * from queues q cross join lateral queue_future_tasks(q.id) f`)).toEqual([
      'lateral-per-row queue_future_tasks(q.id)',
    ]);
    expect(
      f(
        `select * from queues q left join lateral (select 1 from p where p.queue_id = $1 and x) b on true where q.id = $1`,
      ),
    ).toEqual([]);
  });
});
