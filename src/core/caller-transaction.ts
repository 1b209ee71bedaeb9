/**
 * The caller's own open transaction, which `add` may join: described by
 * shape, so the core names no driver. The store runs our statements on it
 * (src/store/external-transaction.ts).
 */

/**
 * A `pg` client (`Client`, or a `PoolClient` from `pool.connect()`) on which
 * BEGIN has run. A `Pool` does not fit (`totalCount`): each of its queries
 * could run on another connection, outside the caller's transaction.
 */
export interface PgClientTransaction {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  readonly totalCount?: never;
}

/**
 * A Kysely transaction: the `trx` of `db.transaction().execute(trx => ...)`
 * or a controlled transaction. A `Kysely` instance does not fit
 * (`isTransaction` is `boolean` there). Our statements run on its connection
 * without its plugins (a `CamelCasePlugin` must not rename our columns).
 */
export interface KyselyTransaction {
  readonly isTransaction: true;
  withoutPlugins(): unknown;
}

/** What `add(tasks, { transaction })` accepts. */
export type CallerTransaction = PgClientTransaction | KyselyTransaction;
