import { DISCOVERY_DOCUMENT, type DiscoverySchema } from './discovery/discovery-document.js';
import type { ResponseShape } from './fields/check-fields.js';

/** The shape of a discovery schema, following `$ref`s (the schemas of this API are not recursive). */
function shapeOf(schema: DiscoverySchema): ResponseShape {
  if (schema.$ref !== undefined) {
    const target = DISCOVERY_DOCUMENT.schemas[schema.$ref];
    if (!target) throw new Error(`discovery schema ${schema.$ref} is missing`);
    return shapeOf(target);
  }
  if (schema.type === 'array' && schema.items) return { type: 'array', items: shapeOf(schema.items) };
  if (schema.type === 'object' && schema.properties) {
    const properties: Record<string, ResponseShape> = {};
    for (const [name, property] of Object.entries(schema.properties)) properties[name] = shapeOf(property);
    return { type: 'object', properties };
  }
  return { type: 'value' };
}

function schemaShape(name: string, extra: Record<string, ResponseShape> = {}): ResponseShape {
  const shape = shapeOf({ type: 'object', $ref: name });
  if (shape.type !== 'object') throw new Error(`discovery schema ${name} is not an object`);
  return { type: 'object', properties: { ...shape.properties, ...extra } };
}

/**
 * What `fields` may select in each response, from the discovery schemas.
 * The list response adds `nextPageToken`, this server's pagination extension.
 */
export const RESPONSE_SHAPES = {
  task: schemaShape('Task'),
  taskQueue: schemaShape('TaskQueue'),
  leasedTasks: schemaShape('Tasks'),
  listedTasks: schemaShape('Tasks2', { nextPageToken: { type: 'value' } }),
  /** delete has no body: any syntactically valid selection is accepted and has nothing to filter. */
  none: null,
} as const;
