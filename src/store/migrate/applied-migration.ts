/** A row of schema_migrations, as migrate() reads it (checksum NULL: recorded by code older than checksums). */
export interface AppliedMigration {
  readonly version: number;
  readonly name: string;
  readonly checksum: string | null;
}

/** A migration's file under sql/, for messages: `sql/0005_lease_history.sql`. */
export function migrationFile(m: { readonly version: number; readonly name: string }): string {
  return `sql/${String(m.version).padStart(4, '0')}_${m.name}.sql`;
}
