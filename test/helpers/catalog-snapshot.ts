/**
 * What a schema is made of, read from the catalog on either engine, so that
 * two schemas (one upgraded from an old revision's data, one migrated fresh)
 * can be compared: tables, columns (order ignored), types, indexes,
 * constraints, triggers, functions, views, sequences, comments and grants.
 * The schema's name is replaced by SCHEMA everywhere (it appears in
 * definitions and in the SQL API's role names), and each part is a sorted
 * list of lines, so a difference reads as lines only one side has.
 */
export type CatalogSnapshot = Record<string, string[]>;

type Query = <R = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<R[]>;

/** One query per part, each returning one text column `line`; $1 is the schema's name. */
const PARTS: Record<string, string> = {
  tables: `
    select c.relname || ' ' || c.relkind::text || ' ' || c.relpersistence::text
           || case when c.relrowsecurity then ' row-security' else '' end
           || coalesce(' ' || array_to_string(c.reloptions, ','), '') as line
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and c.relkind in ('r', 'p', 'v', 'm', 'S')`,
  columns: `
    select c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
           || case when a.attnotnull then ' not null' else '' end
           || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
           || case a.attidentity when '' then '' else ' identity ' || a.attidentity::text end
           || case a.attgenerated when '' then '' else ' generated ' || a.attgenerated::text end
           || coalesce(' collate ' || nullif(co.collname, 'default'), '') as line
      from pg_attribute a
      join pg_class c on c.oid = a.attrelid
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      left join pg_collation co on co.oid = a.attcollation
     where n.nspname = $1 and c.relkind in ('r', 'p', 'v', 'm') and a.attnum > 0 and not a.attisdropped`,
  // Composite types of their own (a table's row type is its columns), enums and domains; a composite's fields in order.
  types: `
    select t.typname || ' ' || t.typtype::text
           || coalesce(': ' || (select string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' order by a.attnum)
                                  from pg_attribute a where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped), '')
           || coalesce(' enum ' || (select string_agg(e.enumlabel, ',' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid), '')
           || case when t.typtype = 'd' then ' domain ' || format_type(t.typbasetype, t.typtypmod) else '' end as line
      from pg_type t join pg_namespace n on n.oid = t.typnamespace
     where n.nspname = $1
       and (t.typtype in ('e', 'd') or (t.typtype = 'c' and (select relkind from pg_class where oid = t.typrelid) = 'c'))`,
  indexes: `select indexdef as line from pg_indexes where schemaname = $1`,
  constraints: `
    select c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid)
           || case when k.condeferrable then ' deferrable' else '' end as line
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid
      join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1`,
  triggers: `
    select pg_get_triggerdef(t.oid) || case t.tgenabled when 'O' then '' else ' enabled=' || t.tgenabled::text end as line
      from pg_trigger t
      join pg_class c on c.oid = t.tgrelid
      join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and not t.tgisinternal`,
  functions: `
    select pg_get_functiondef(p.oid) as line
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = $1 and p.prokind in ('f', 'p')`,
  views: `
    select c.relname || ': ' || pg_get_viewdef(c.oid) as line
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and c.relkind in ('v', 'm')`,
  sequences: `
    select sequencename || ' ' || data_type || ' start ' || start_value || ' by ' || increment_by
           || ' min ' || min_value || ' max ' || max_value || ' cache ' || cache_size
           || case when cycle then ' cycle' else '' end as line
      from pg_sequences where schemaname = $1`,
  comments: `
    select c.relname || coalesce('.' || a.attname, '') || ': ' || d.description as line
      from pg_description d
      join pg_class c on c.oid = d.objoid and d.classoid = 'pg_class'::regclass
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_attribute a on a.attrelid = c.oid and a.attnum = d.objsubid and d.objsubid > 0
     where n.nspname = $1
    union all
    select p.proname || '(' || pg_get_function_identity_arguments(p.oid) || '): ' || d.description
      from pg_description d
      join pg_proc p on p.oid = d.objoid and d.classoid = 'pg_proc'::regclass
      join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = $1`,
  grants: `
    select 'schema: ' || coalesce(array_to_string(array(select unnest(nspacl)::text order by 1), ' '), 'default') as line
      from pg_namespace where nspname = $1
    union all
    select 'relation ' || c.relname || ': ' || array_to_string(array(select unnest(c.relacl)::text order by 1), ' ')
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and c.relacl is not null
    union all
    select 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || '): '
           || array_to_string(array(select unnest(p.proacl)::text order by 1), ' ')
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = $1 and p.proacl is not null`,
};

/** Reads the catalog of `schema`. */
export async function catalogSnapshot(query: Query, schema: string): Promise<CatalogSnapshot> {
  const snapshot: CatalogSnapshot = {};
  const named = new RegExp(`\\b${schema}\\b|\\b${schema}(?=_(producer|consumer)\\b)`, 'g');
  for (const [part, text] of Object.entries(PARTS)) {
    const rows = await query<{ line: string }>(text, [schema]);
    snapshot[part] = rows.map((row) => row.line.replace(named, 'SCHEMA')).sort();
  }
  return snapshot;
}

/**
 * The differences of two snapshots, readable: per part, the lines only one
 * side has, each marked `-` (only in `a`) or `+` (only in `b`). Empty when
 * they are equal.
 */
export function catalogDiff(a: CatalogSnapshot, b: CatalogSnapshot, names = { a: 'a', b: 'b' }): string {
  const out: string[] = [];
  for (const part of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const left = a[part] ?? [];
    const right = b[part] ?? [];
    const onlyLeft = difference(left, right);
    const onlyRight = difference(right, left);
    if (onlyLeft.length === 0 && onlyRight.length === 0) continue;
    out.push(`== ${part}: ${onlyLeft.length} only in ${names.a} (-), ${onlyRight.length} only in ${names.b} (+)`);
    for (const line of onlyLeft) out.push(indent('- ', line));
    for (const line of onlyRight) out.push(indent('+ ', line));
  }
  return out.join('\n');
}

/** The lines of `a` not in `b`, counting repeats. */
function difference(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const line of b) left.set(line, (left.get(line) ?? 0) + 1);
  const out: string[] = [];
  for (const line of a) {
    const n = left.get(line) ?? 0;
    if (n > 0) left.set(line, n - 1);
    else out.push(line);
  }
  return out;
}

function indent(mark: string, text: string): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? mark : '  ') + line)
    .join('\n');
}
