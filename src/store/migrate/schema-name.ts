import { QueueError } from '../../core/errors.js';

const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Checks a schema name. Names are quoted wherever they are used, but a plain
 * lower-case identifier keeps them readable in psql and in error messages.
 */
export function validateSchemaName(schema: string): string {
  if (!SCHEMA_PATTERN.test(schema)) {
    throw new QueueError(
      'INVALID_CONFIG',
      `schema name "${schema}" must be a lower-case SQL identifier (letters, digits, _; at most 63)`,
      { field: 'schema' },
    );
  }
  return schema;
}
