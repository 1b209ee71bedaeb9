/**
 * A parsed `fields` selection (spec section 4.3, partial response). Each key
 * names a child of the object it applies to, or is `*` for every child; its
 * value is `true` to keep that child whole, or a nested selection to keep
 * only part of it. `a/b,a/c` and `a(b,c)` both parse to `{a: {b, c}}`.
 */
export type FieldSelection = ReadonlyMap<string, FieldSelection | true>;

/** The wildcard name: every child of the enclosing object. */
export const WILDCARD = '*';

/**
 * The union of two selections. Selecting a field whole wins over selecting
 * part of it (`a,a/b` keeps all of `a`), so the result never depends on the
 * order in which the parts were written.
 */
export function mergeSelections(a: FieldSelection, b: FieldSelection): FieldSelection {
  const merged = new Map(a);
  for (const [name, sub] of b) {
    const existing = merged.get(name);
    if (existing === undefined) merged.set(name, sub);
    else if (existing === true || sub === true) merged.set(name, true);
    else merged.set(name, mergeSelections(existing, sub));
  }
  return merged;
}
