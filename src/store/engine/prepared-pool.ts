import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { statementName } from './statement-name.js';

/**
 * Hands Kysely a view of the pg pool whose parameterised queries run as
 * named prepared statements. The service's statements have one text per
 * shape (values are always bound), so each connection parses and plans a
 * shape once and then only binds and executes it. Most of a single-task
 * lease's server time was parse and plan of its CTEs. The name is the
 * statement's label plus a digest of the text (statement-name.ts), so two
 * texts never share a name; statements without parameters (migrations,
 * several statements in one text) run unnamed.
 *
 * Behind a pooler in transaction mode (PgBouncer), a named statement
 * prepared on one server connection is missing on the next: with
 * `prepared: false` every statement runs unnamed, and the session settings
 * that cannot be given at connect (they would not follow the client from
 * one server connection to the next) are set with SET LOCAL at the start of
 * each transaction, in the BEGIN's own round trip.
 */
export function preparedStatementPool(
  pool: pg.Pool,
  options: StatementOptions = { prepared: true, transactionSettings: '' },
): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      // A client whose query timed out on the client side or lost its
      // connection may still have that query in flight: give it back as
      // broken, so the pool closes it instead of handing it out again.
      let broken: Error | undefined;
      const query = async (sql: string, parameters: ReadonlyArray<unknown>) => {
        try {
          if (parameters.length === 0) {
            if (options.transactionSettings !== '' && BEGIN.test(sql)) {
              // Same round trip: the settings ride on the BEGIN (simple protocol, two statements).
              const results = (await client.query(
                `${sql}; ${options.transactionSettings}`,
              )) as unknown as pg.QueryResult[];
              return results[0]!;
            }
            return await client.query(sql);
          }
          return options.prepared
            ? await namedQuery(client, statementName(sql), sql, [...parameters])
            : await client.query(sql, [...parameters]);
        } catch (error) {
          // A SQLSTATE means the server answered: the connection is fine.
          const code = (error as { code?: unknown }).code;
          if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) {
            broken = error instanceof Error ? error : new Error(String(error));
          }
          throw error;
        }
      };
      // Kysely's client type also has a cursor overload the service never uses.
      // Kysely asks to discard a connection it cannot trust (a failed ROLLBACK
      // leaves its state unknown): pg destroys a client released with a truthy value.
      return {
        query: query as unknown as PostgresPoolClient['query'],
        release: (discard?: boolean) => client.release(broken ?? (discard === true ? true : undefined)),
      };
    },
    end: () => pool.end(),
  };
}

/**
 * A named statement run through a `pg.Query` built from the text, its name
 * set after. Handed a config object (`{ name, text, values }`), pg copies it
 * property descriptor by property descriptor first, which was the driver's
 * largest own cost per statement in a profile of single-task REST calls.
 */
function namedQuery(client: pg.PoolClient, name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const query = new pg.Query(text, values, (error, result) =>
      error ? reject(error) : resolve(result as unknown as pg.QueryResult),
    );
    // Typed without `name`, which pg reads from the query object (query.js) to prepare it.
    (query as unknown as { name: string }).name = name;
    client.query(query);
  });
}

/** How statements run: named prepared or unnamed, and what each transaction sets first. */
export interface StatementOptions {
  readonly prepared: boolean;
  /** `set local a = b; ...` run with each BEGIN; empty = nothing. */
  readonly transactionSettings: string;
}

const BEGIN = /^\s*(begin|start transaction)\b/i;
