import { QueueError } from '../../core/errors.js';
import { migrationFile, type AppliedMigration } from './applied-migration.js';
import type { Migration } from './migration.js';
import { sqlDigest } from './sql-digest.js';

/**
 * Compares a schema's applied migrations with this package's files.
 * Returns the migrations whose row has no checksum yet (applied by code
 * older than checksums): their file's checksum is to be recorded. Throws
 * when an applied migration's file is not the one the schema applied (its
 * text changed, or the schema recorded another name under its number): a
 * released migration never changes, since every database that applied it
 * would keep the old text while new ones get the new.
 */
export function uncheckedMigrations(
  schema: string,
  migrations: readonly Migration[],
  applied: readonly AppliedMigration[],
): Migration[] {
  const byVersion = new Map(applied.map((row) => [row.version, row]));
  const unchecked: Migration[] = [];
  for (const migration of migrations) {
    const row = byVersion.get(migration.version);
    if (row === undefined) continue;
    const file = migrationFile(migration);
    if (row.name !== migration.name) {
      throw new QueueError(
        'INVALID_CONFIG',
        `schema "${schema}" applied migration ${String(migration.version).padStart(4, '0')} as "${row.name}", ` +
          `but this version's is ${file}: the schema was made by another build. Migrate it with that build, ` +
          'or start from a released version.',
        { field: file },
      );
    }
    if (row.checksum === null) unchecked.push(migration);
    else if (row.checksum !== sqlDigest(migration.text)) throw editedMigration(schema, file);
  }
  return unchecked;
}

/** The error for an applied migration whose file changed afterwards. */
export function editedMigration(schema: string, file: string): QueueError {
  return new QueueError(
    'INVALID_CONFIG',
    `${file} was changed after schema "${schema}" applied it (its checksum differs from the one recorded in ` +
      'schema_migrations): an applied migration never changes. Restore the file as it was released, and put the ' +
      'change in a new migration (CONTRIBUTING.md, "A schema change").',
    { field: file },
  );
}
