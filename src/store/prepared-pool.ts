import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
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
 */
export function preparedStatementPool(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      // A client whose query timed out on the client side or lost its
      // connection may still have that query in flight: give it back as
      // broken, so the pool closes it instead of handing it out again.
      let broken: Error | undefined;
      const query = async (sql: string, parameters: ReadonlyArray<unknown>) => {
        try {
          return parameters.length === 0
            ? await client.query(sql)
            : await client.query({ name: statementName(sql), text: sql, values: [...parameters] });
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
      return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release(broken) };
    },
    end: () => pool.end(),
  };
}
