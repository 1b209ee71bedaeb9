import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * A Kysely dialect for PGlite, the embedded PostgreSQL. PGlite has one
 * session, so connections are handed out one at a time: a Kysely transaction
 * holds the session until it ends and queries of other callers wait, instead
 * of interleaving with it (the failure measured in kysely-pglite).
 */
export class PGliteDialect implements Dialect {
  readonly #client: PGlite;

  constructor(client: PGlite) {
    this.#client = client;
  }

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.#client);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}

class PGliteConnection implements DatabaseConnection {
  readonly #client: PGlite;

  constructor(client: PGlite) {
    this.#client = client;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // Parameterless text may hold several statements (a migration file); only
    // exec() runs those, and it answers with one result per statement.
    const result =
      compiledQuery.parameters.length === 0
        ? (await this.#client.exec(compiledQuery.sql)).at(-1)
        : await this.#client.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    const rows = (result?.rows ?? []) as R[];
    return result?.affectedRows === undefined ? { rows } : { rows, numAffectedRows: BigInt(result.affectedRows) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite: streaming queries are not supported');
  }
}

class PGliteDriver implements Driver {
  readonly #client: PGlite;
  readonly #connection: PGliteConnection;
  #busy = false;
  readonly #waiters: Array<(connection: DatabaseConnection) => void> = [];

  constructor(client: PGlite) {
    this.#client = client;
    this.#connection = new PGliteConnection(client);
  }

  async init(): Promise<void> {
    await this.#client.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (!this.#busy) {
      this.#busy = true;
      return this.#connection;
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  async releaseConnection(): Promise<void> {
    const next = this.#waiters.shift();
    if (next) next(this.#connection);
    else this.#busy = false;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const begin = settings.isolationLevel ? `start transaction isolation level ${settings.isolationLevel}` : 'begin';
    await connection.executeQuery(CompiledQuery.raw(begin));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    // The PGlite instance belongs to whoever created it (see database.ts).
  }
}
