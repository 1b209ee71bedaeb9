import type { CompiledQuery, QueryResult } from 'kysely';
import { QueueError } from '../core/errors.js';

/** Something that can run one compiled query: our Kysely, a Kysely transaction, or a pg client. */
export type QueryRunner = <R>(query: CompiledQuery<R>) => Promise<QueryResult<R>>;

interface PgLikeClient {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

interface KyselyLike {
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

/**
 * Adapts the caller's own transaction so our statements run inside it and
 * become visible only when the caller commits. Accepts a Kysely transaction
 * (or Kysely instance) and a `pg` client (`Client` or a `PoolClient` that
 * has run BEGIN). A pg `Pool` is refused: each query could run on another
 * connection, outside the caller's transaction.
 */
export function runnerFor(transaction: object): QueryRunner {
  const candidate = transaction as Partial<KyselyLike & PgLikeClient> & { totalCount?: unknown };
  if (typeof candidate.executeQuery === 'function') {
    if ((transaction as { isTransaction?: unknown }).isTransaction !== true) {
      throw new QueueError(
        'INVALID_REQUEST',
        'transaction: got a Kysely instance, not a transaction; pass the trx of db.transaction().execute(trx => ...)',
        { field: 'transaction' },
      );
    }
    const kysely = transaction as KyselyLike;
    return (query) => kysely.executeQuery(query);
  }
  if (typeof candidate.query === 'function') {
    if (typeof candidate.totalCount === 'number') {
      throw new QueueError(
        'INVALID_REQUEST',
        'transaction: got a pg Pool; pass the client you ran BEGIN on (pool.connect()), so the tasks join its transaction',
        { field: 'transaction' },
      );
    }
    const client = transaction as PgLikeClient;
    return async <R>(query: CompiledQuery<R>) => {
      const result = await client.query(query.sql, [...query.parameters]);
      return {
        rows: result.rows as R[],
        ...(result.rowCount === null ? {} : { numAffectedRows: BigInt(result.rowCount) }),
      };
    };
  }
  throw new QueueError(
    'INVALID_REQUEST',
    'transaction must be a Kysely transaction or a pg client inside BEGIN',
    { field: 'transaction' },
  );
}
