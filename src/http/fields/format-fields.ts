import type { FieldSelection } from './field-selection.js';

/**
 * Writes a selection back in `fields` syntax: a single child as a path
 * (`a/b`), several as a sub-selection (`a(b,c)`). `parseFields` of the result
 * gives the same selection back, which the property tests check.
 */
export function formatFields(selection: FieldSelection): string {
  const parts: string[] = [];
  for (const [name, sub] of selection) {
    if (sub === true) parts.push(name);
    else if (sub.size === 1) parts.push(`${name}/${formatFields(sub)}`);
    else parts.push(`${name}(${formatFields(sub)})`);
  }
  return parts.join(',');
}
