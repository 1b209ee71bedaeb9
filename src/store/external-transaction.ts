import type { CompiledQuery, QueryResult } from 'kysely';
import type { CallerTransaction, KyselyTransaction, PgClientTransaction } from '../core/caller-transaction.js';
import { QueueError } from '../core/errors.js';

/** Something that can run one compiled query: our Kysely, a Kysely transaction, or a pg client. */
export type QueryRunner = <R>(query: CompiledQuery<R>) => Promise<QueryResult<R>>;

interface KyselyExecutor {
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

/**
 * Adapts the caller's own transaction so our statements run inside it and
 * become visible only when the caller commits. Accepts a Kysely transaction
 * and a `pg` client (`Client` or a `PoolClient` that has run BEGIN). The
 * types already refuse a Kysely instance and a pg `Pool`; the checks here
 * are for callers without types.
 *
 * A Kysely transaction runs our compiled statements through
 * `withoutPlugins()`: the same connection, without the caller's plugins, so
 * a `CamelCasePlugin` (which renames result columns) cannot change what our
 * statements return.
 */
export function runnerFor(transaction: CallerTransaction): QueryRunner {
  const candidate = transaction as Partial<KyselyTransaction & PgClientTransaction> & {
    executeQuery?: unknown;
    totalCount?: unknown;
  };
  if (typeof candidate.executeQuery === 'function') {
    if (candidate.isTransaction !== true || typeof candidate.withoutPlugins !== 'function') {
      throw new QueueError(
        'INVALID_REQUEST',
        'transaction: got a Kysely instance, not a transaction; pass the trx of db.transaction().execute(trx => ...)',
        { field: 'transaction' },
      );
    }
    const executor = candidate.withoutPlugins() as KyselyExecutor;
    return (query) => executor.executeQuery(query);
  }
  if (typeof candidate.query === 'function') {
    if (typeof candidate.totalCount === 'number') {
      throw new QueueError(
        'INVALID_REQUEST',
        'transaction: got a pg Pool; pass the client you ran BEGIN on (pool.connect()), so the tasks join its transaction',
        { field: 'transaction' },
      );
    }
    const client = transaction as PgClientTransaction;
    return async <R>(query: CompiledQuery<R>) => {
      const result = await client.query(query.sql, [...query.parameters]);
      return {
        rows: result.rows as R[],
        ...(result.rowCount === null ? {} : { numAffectedRows: BigInt(result.rowCount) }),
      };
    };
  }
  throw new QueueError('INVALID_REQUEST', 'transaction must be a Kysely transaction or a pg client inside BEGIN', {
    field: 'transaction',
  });
}
