import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';

/** What every store query needs: the database and the schema its tables live in. */
export interface StoreContext {
  readonly db: Kysely<Database>;
  readonly schema: string;
}

/**
 * A schema-qualified table name for `sql` templates (queries must not depend
 * on search_path). Built once per name: parsing it was a visible share of
 * Node's time per statement, and a RawBuilder never changes once made.
 */
export function table(ctx: StoreContext, name: keyof Database): RawBuilder<unknown> {
  return qualified(ctx, name, false);
}

/** A schema-qualified function name for `sql` templates, as `table` for tables. */
export function routine(ctx: StoreContext, name: string): RawBuilder<unknown> {
  return qualified(ctx, name, true);
}

/** Qualified names, each built once (no closure per call: `table` runs for every statement). */
function qualified(ctx: StoreContext, name: string, isRoutine: boolean): RawBuilder<unknown> {
  const full = `${ctx.schema}.${name}`;
  const cache = isRoutine ? routines : tables;
  let builder = cache.get(full);
  if (!builder) {
    builder = isRoutine ? sql.id(ctx.schema, name) : sql.table(full);
    cache.set(full, builder);
  }
  return builder;
}

const tables = new Map<string, RawBuilder<unknown>>();
const routines = new Map<string, RawBuilder<unknown>>();

/**
 * A timestamptz column as integer microseconds since the epoch. extract()
 * returns numeric (exact) since PostgreSQL 14, so nothing is rounded. It
 * takes the epoch of an interval (the time since 1970), not of the
 * timestamptz itself: the same number, but extract() on a timestamptz is
 * only STABLE and an interval's is IMMUTABLE, which a sharded PostgreSQL
 * (Citus) requires of every function in an UPDATE or DELETE it routes to
 * one node.
 */
export function usecOf(column: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`(extract(epoch from (${column} - timestamptz 'epoch')) * 1000000)::int8`;
}

/**
 * Microseconds since the epoch as a timestamptz, exactly: whole seconds and
 * the microsecond rest are bound separately, so no floating-point product
 * ever rounds a lease token.
 */
export function timestampFromUsec(usec: number): RawBuilder<Date> {
  const seconds = Math.floor(usec / 1_000_000);
  const micros = usec - seconds * 1_000_000;
  return sql<Date>`(timestamptz 'epoch' + ${seconds}::int8 * interval '1 second' + ${micros}::int4 * interval '1 microsecond')`;
}

/** A duration in milliseconds as an interval (a number is bound; a fragment, such as a PL/pgSQL variable, goes in as is). */
export function intervalFromMs(ms: number | RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(${ms}::float8 * interval '1 millisecond')`;
}

/** int8 values arrive as strings (pg) or numbers/bigints (PGlite). */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint' || typeof value === 'string') return Number(value);
  if (value === null || value === undefined) return 0;
  throw new TypeError(`expected a number, got ${typeof value}`);
}

/** bytea arrives as a Buffer (pg) or a Uint8Array (PGlite); hand out Buffers without copying. */
export function toBuffer(value: Uint8Array | null | undefined): Buffer {
  if (value === null || value === undefined) return Buffer.alloc(0);
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}
