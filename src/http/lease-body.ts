import { HttpError, invalidField, quote } from './http-error.js';
import { parseJsonObject } from './json-body.js';
import { QueryParams } from './query-params.js';

/**
 * The lease parameters a JSON body may carry, by every name accepted for
 * each: the discovery's camelCase and the snake_case of the App Engine API
 * (`lease_secs` is the spec's own spelling; the others are accepted alike,
 * the spec being silent). Each maps to the name the query string uses.
 */
const JSON_NAMES: Readonly<Record<string, string>> = {
  numTasks: 'numTasks',
  num_tasks: 'numTasks',
  leaseSecs: 'leaseSecs',
  lease_secs: 'leaseSecs',
  groupByTag: 'groupByTag',
  group_by_tag: 'groupByTag',
  tag: 'tag',
  waitSecs: 'waitSecs',
  wait_secs: 'waitSecs',
};

/** The query string's names of one parameter: `leaseSecs` also goes by `lease_secs` there. */
const QUERY_NAMES: Readonly<Record<string, readonly string[]>> = {
  numTasks: ['numTasks'],
  leaseSecs: ['leaseSecs', 'lease_secs'],
  groupByTag: ['groupByTag'],
  tag: ['tag'],
  waitSecs: ['waitSecs'],
};

/**
 * The lease parameters of the request: the query string's, plus those of
 * its body.
 *
 * - `application/x-www-form-urlencoded` (hawkeye sends its parameters so): a
 *   name may come from the query or the body, not from both.
 * - `application/json`: early discovery-based clients send a body with
 *   every POST, lease included (`{}`), and some put the parameters in it.
 *   Numbers and booleans may be JSON values or strings. A parameter the
 *   query string also gives is taken from the query string (it is what the
 *   client's method call was given); a field that is no lease parameter is
 *   400 naming it.
 *
 * Any other kind of non-empty body is refused rather than ignored.
 */
export function leaseRequestParams(query: QueryParams, body: Buffer, contentType: string | undefined): QueryParams {
  if (body.byteLength === 0) return query;
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return query.with(QueryParams.fromString(body.toString('utf8')));
  if (type === 'application/json') return query.with(jsonParams(parseJsonObject(body), query));
  throw new HttpError(
    400,
    'badRequest',
    'tasks.lease takes its parameters in the query string, an application/x-www-form-urlencoded body or an application/json body',
  );
}

/** The JSON body's parameters the query string does not give, as query values. */
function jsonParams(json: Record<string, unknown>, query: QueryParams): QueryParams {
  const values = new Map<string, string[]>();
  const from = new Map<string, string>();
  for (const [field, value] of Object.entries(json)) {
    // Own properties only: a field named "constructor" or "__proto__" is no
    // lease parameter (it found Object.prototype's and answered 500).
    const name = Object.hasOwn(JSON_NAMES, field) ? JSON_NAMES[field] : undefined;
    if (name === undefined) {
      throw invalidField(
        field,
        `Unknown field ${quote(field)} in a lease body; its fields are ${Object.keys(JSON_NAMES).join(', ')}`,
      );
    }
    const earlier = from.get(name);
    if (earlier !== undefined) throw invalidField(field, `Give either ${earlier} or ${field}, not both`);
    from.set(name, field);
    if (value === null || value === undefined) continue;
    if (QUERY_NAMES[name]!.some((queryName) => query.has(queryName))) continue;
    values.set(name, [jsonValue(field, value)]);
  }
  return new QueryParams(values);
}

/** A JSON number, boolean or string as the query string would write it; the query string's checks follow. */
function jsonValue(field: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return String(value);
  throw invalidField(field, `${field} must be a number, a boolean or a string`);
}
