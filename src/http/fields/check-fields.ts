import { WILDCARD, type FieldSelection } from './field-selection.js';
import { FieldsSyntaxError } from './parse-fields.js';

/** The structure of a response, as far as `fields` can select into it. */
export type ResponseShape =
  | { readonly type: 'value' }
  | { readonly type: 'object'; readonly properties: Readonly<Record<string, ResponseShape>> }
  | { readonly type: 'array'; readonly items: ResponseShape };

/**
 * Checks a selection against the shape of the response it will filter, so
 * that `fields=itmes` is a 400 naming `itmes` rather than an empty object,
 * and the check happens before the method runs (a bad selection on insert
 * must not insert). A sub-selection of a plain value is refused too.
 */
export function checkFields(selection: FieldSelection, shape: ResponseShape, path = ''): void {
  const target = shape.type === 'array' ? shape.items : shape;
  for (const [name, sub] of selection) {
    const here = path ? `${path}/${name}` : name;
    if (target.type !== 'object') {
      throw new FieldsSyntaxError(`"${path}" has no fields to select, so "${here}" is not valid`);
    }
    // Own properties only: `constructor` or `__proto__` are not fields of a plain object literal.
    const children =
      name === WILDCARD
        ? Object.values(target.properties)
        : [Object.hasOwn(target.properties, name) ? target.properties[name] : undefined];
    if (children[0] === undefined) {
      throw new FieldsSyntaxError(`"${here}" is not a field of the response`);
    }
    if (sub === true) continue;
    const errors: FieldsSyntaxError[] = [];
    for (const child of children as ResponseShape[]) {
      try {
        checkFields(sub, child, here);
      } catch (error) {
        errors.push(error as FieldsSyntaxError);
      }
    }
    // Under `*` a sub-selection must fit at least one child; a named field must fit.
    if (errors.length === children.length && errors[0]) throw errors[0];
  }
}
