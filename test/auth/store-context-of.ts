import { openDatabase, type OpenDatabase } from '../../src/store/engine/database.js';
import type { StoreContext } from '../../src/store/store-context.js';
import { testPGlite, testPgUrl, type TestService } from '../helpers/engines.js';

/** The database and schema behind a test service (what the local issuer is given in production too). */
export function storeContextOf(t: TestService): StoreContext {
  return { db: t.db, schema: t.schema };
}

/**
 * A second, independent handle on the same database and schema: its own
 * connection pool on PostgreSQL (as another server process would have), a
 * second Kysely over the shared instance on PGlite. Close it after use.
 */
export async function secondHandle(t: TestService): Promise<{ ctx: StoreContext; database: OpenDatabase }> {
  const database =
    t.engine === 'postgres'
      ? await openDatabase({ kind: 'postgres', url: testPgUrl(), poolSize: 2 })
      : await openDatabase({ kind: 'pglite-instance', instance: await testPGlite() });
  return { ctx: { db: database.db, schema: t.schema }, database };
}
