import { invalidParameter, quote, requiredParameter } from './http-error.js';

/**
 * The query parameters of one request, read strictly. `Number()` and
 * `parseInt()` accept far too much (`Number('')` is 0, `Number('0x10')` is
 * 16, `parseInt('10abc')` is 10, `1e3` is 1000), so integers must match
 * `^[0-9]+$` before any range check; booleans must say `true` or `false`
 * (AppScale's `bool("false")` was true). A parameter given twice is refused
 * rather than silently taking one of the values.
 */
export class QueryParams {
  readonly #values: Map<string, string[]>;

  constructor(values: Map<string, string[]>) {
    this.#values = values;
  }

  /** From a request URL (`+` and percent escapes decoded as in any query string). */
  static fromUrl(url: string): QueryParams {
    const question = url.indexOf('?');
    return QueryParams.fromString(question < 0 ? '' : url.slice(question + 1));
  }

  /** From a query string or an `application/x-www-form-urlencoded` body. */
  static fromString(text: string): QueryParams {
    const values = new Map<string, string[]>();
    for (const [name, value] of new URLSearchParams(text)) {
      const list = values.get(name);
      if (list) list.push(value);
      else values.set(name, [value]);
    }
    return new QueryParams(values);
  }

  /**
   * These parameters plus those of `other` (a form body): a name may come
   * from either place, not from both.
   */
  with(other: QueryParams): QueryParams {
    const values = new Map(this.#values);
    for (const [name, list] of other.#values) {
      if (values.has(name))
        throw invalidParameter(name, `Parameter ${name} is given both in the query string and in the body`);
      values.set(name, list);
    }
    return new QueryParams(values);
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }

  /** The one value of a parameter, or undefined; 400 when it is repeated. */
  string(name: string): string | undefined {
    const list = this.#values.get(name);
    if (list === undefined) return undefined;
    if (list.length > 1)
      throw invalidParameter(name, `Parameter ${name} may be given only once, got ${list.length} values`);
    return list[0];
  }

  /** An integer in [min, max], written in plain decimal digits. */
  integer(name: string, range: { min: number; max: number }): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const value = /^[0-9]{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(value >= range.min && value <= range.max)) {
      throw invalidParameter(
        name,
        `Invalid value ${quote(raw)} for parameter ${name}: must be an integer from ${range.min} to ${range.max}`,
      );
    }
    return value;
  }

  requiredInteger(name: string, range: { min: number; max: number }): number {
    const value = this.integer(name, range);
    if (value === undefined) throw requiredParameter(name);
    return value;
  }

  /** `true` or `false` (any case); anything else, the empty string included, is 400. */
  boolean(name: string): boolean | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const lower = raw.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    throw invalidParameter(name, `Invalid value ${quote(raw)} for parameter ${name}: must be true or false`);
  }

  /** Names of all parameters present. */
  names(): IterableIterator<string> {
    return this.#values.keys();
  }
}
