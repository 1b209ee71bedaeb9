import { createHash } from 'node:crypto';

/**
 * The sha256 (hex) of a migration's or a routine's text: what
 * schema_migrations.checksum and schema_routines.digest record, so that
 * migrate() notices an applied migration edited afterwards, and a routine
 * whose text changed.
 */
export function sqlDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
