import { mergeSelections, WILDCARD, type FieldSelection } from './field-selection.js';

/**
 * Keeps only the selected part of a JSON value (spec section 4.3, rules 4-6):
 * the selected fields and the objects that enclose them; an array has the
 * selection applied to each element; a field selected without a
 * sub-selection is kept whole. Fields absent from the value stay absent, and
 * nothing is ever added, so the result is always a part of the input.
 */
export function applyFields(value: unknown, selection: FieldSelection): unknown {
  // Elements that are not objects have nothing to select from; they stay, so indices keep their meaning.
  if (Array.isArray(value))
    return value.map((element) =>
      element !== null && typeof element === 'object' ? applyFields(element, selection) : element,
    );
  if (value === null || typeof value !== 'object') return undefined;
  const source = value as Record<string, unknown>;
  const wildcard = selection.get(WILDCARD);
  const result: Record<string, unknown> = {};
  const names = wildcard === undefined ? selection.keys() : Object.keys(source);
  for (const name of names) {
    if (!Object.hasOwn(source, name)) continue;
    const sub = combine(selection.get(name), wildcard);
    if (sub === undefined) continue;
    const kept = sub === true ? source[name] : applyFields(source[name], sub);
    if (kept !== undefined) result[name] = kept;
  }
  return result;
}

/** The selection for one child when it is named and also covered by `*`: the union of both. */
function combine(
  named: FieldSelection | true | undefined,
  wildcard: FieldSelection | true | undefined,
): FieldSelection | true | undefined {
  if (named === undefined) return wildcard;
  if (wildcard === undefined) return named;
  if (named === true || wildcard === true) return true;
  return mergeSelections(named, wildcard);
}
