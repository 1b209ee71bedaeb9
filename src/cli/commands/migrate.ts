import { resolve } from 'node:path';
import type { ServiceSettings } from '../../config/service-settings.js';
import { openDatabase } from '../../store/database.js';
import { migrate } from '../../store/migrate.js';

/** `taskqueue migrate`: applies pending migrations (safe to run while servers start). */
export async function migrateCommand(settings: ServiceSettings, out: NodeJS.WritableStream): Promise<number> {
  const database = await openDatabase(
    settings.databaseUrl
      ? { kind: 'postgres', url: settings.databaseUrl, poolSize: 1 }
      : { kind: 'pglite', dataDir: resolve(settings.dataDir) },
  );
  try {
    const result = await migrate(database.db, settings.schema);
    out.write(
      result.applied.length === 0
        ? `schema ${result.schema} is up to date (version ${result.current})\n`
        : `schema ${result.schema}: applied ${result.applied.join(', ')} (now at version ${result.current})\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}
