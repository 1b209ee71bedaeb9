import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { QueueError } from '../../core/errors.js';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';
import { PGliteDialect } from './pglite-dialect.js';
import { preparedStatementPool } from './prepared-pool.js';
import type { Database } from '../schema.js';

/**
 * Planner settings of the service's own sessions. Every query the service
 * issues is an index lookup, an index-ordered scan with LIMIT, or a join
 * whose inner side is a primary-key lookup (deleting named tasks, checking
 * tombstones). Bitmap heap scans, hash joins and merge joins are never the
 * right plan for them. But while a table's statistics are young (a fresh
 * deployment, a burst of adds), the planner's default guesses pick them:
 * the lease then fetches and sorts every due task instead of reading the
 * first n from (queue_id, eta), and a delete of 100 names hashes the whole
 * queue; measured at 3x and 5x the time with 20,000 waiting tasks. Sessions
 * of other applications are not touched.
 *
 * Prepared statements (prepared-pool.ts) run their generic plan from the
 * first execution: with current statistics PostgreSQL judged the generic
 * plan of the lease statement dearer than a custom one (its LIMIT is a
 * parameter) and planned the whole statement again on every call, which made
 * a one-task lease 0.6 -> 0.9 ms at the median. Every statement the service
 * prepares has one right plan whatever its values are (the shapes above);
 * the statistics it needs are kept current (task-statistics.ts).
 *
 * JIT compilation is off: a generic plan prices an unknown LIMIT at a tenth
 * of the table, so with a million waiting tasks the lease statement's
 * estimate passed jit_above_cost and every lease of 100 compiled its
 * expressions first (35 ms instead of 5). No statement of the service runs
 * long enough to win back a compilation.
 */
export const PLANNER_SETTINGS: Readonly<Record<string, string>> = {
  enable_bitmapscan: 'off',
  enable_hashjoin: 'off',
  enable_mergejoin: 'off',
  plan_cache_mode: 'force_generic_plan',
  jit: 'off',
};

/**
 * How prepared statements are planned (TASKQUEUE_PLAN_CACHE): `generic`, the
 * default, as PLANNER_SETTINGS says; `auto`, PostgreSQL's own choice. On
 * Citus the forced generic plans fail most multi-CTE statements (`could not
 * create distributed plan`) and crashed the coordinator on one; there `auto`
 * is required (docs/scaling.md). On plain PostgreSQL `auto` costs a re-plan
 * of the lease per call (see above).
 */
export type PlanCacheMode = 'generic' | 'auto';

/** PLANNER_SETTINGS with the plan cache mode chosen. */
export function plannerSettings(planCache: PlanCacheMode = 'generic'): Readonly<Record<string, string>> {
  return planCache === 'generic' ? PLANNER_SETTINGS : { ...PLANNER_SETTINGS, plan_cache_mode: 'auto' };
}

/** The settings as a libpq `options` string: `-c a=b -c c=d`. */
function plannerOptions(planCache: PlanCacheMode): string {
  return Object.entries(plannerSettings(planCache))
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
}

const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** Plan caching as PostgreSQL chooses, where the citus extension is installed (see openPostgres). */
const CITUS_PLAN_CACHE = `/* citus_plan_cache */ select set_config('plan_cache_mode', 'auto', false)
  where exists (select 1 from pg_catalog.pg_extension where extname = 'citus')`;

/** The session settings as SET LOCAL statements, for each transaction behind a pooler. */
function transactionSettings(statementTimeoutMs: number, planCache: PlanCacheMode): string {
  return [
    ...Object.entries(plannerSettings(planCache)).map(([name, value]) => `set local ${name} = ${value}`),
    `set local statement_timeout = ${Math.trunc(statementTimeoutMs)}`,
    `set local idle_in_transaction_session_timeout = ${IDLE_IN_TRANSACTION_TIMEOUT_MS}`,
  ].join('; ');
}

/** The settings as SET statements, for PGlite's one session. */
async function applyPlannerSettings(instance: PGlite): Promise<void> {
  await instance.exec(
    Object.entries(PLANNER_SETTINGS)
      .map(([name, value]) => `set ${name} = ${value};`)
      .join(' '),
  );
}

/** Which engine runs the SQL: a PostgreSQL server, or PGlite in this process. */
export type EngineKind = 'postgres' | 'pglite';

export type DatabaseOptions =
  | {
      readonly kind: 'postgres';
      readonly url: string;
      /** Connections in the pool (default 10). */
      readonly poolSize?: number;
      /** Server-side statement_timeout; a slow database gives DEADLINE_EXCEEDED, never a hang. */
      readonly statementTimeoutMs?: number;
      /** How long to wait for a connection before giving up (TRANSIENT_ERROR). */
      readonly connectTimeoutMs?: number;
      /**
       * Named prepared statements and settings given at connect (default
       * true). False for a pooler in transaction mode (PgBouncer): every
       * statement runs unnamed, and the settings are set in each transaction.
       */
      readonly preparedStatements?: boolean;
      /** A direct connection (not through the pooler) for LISTEN; absent = `url`, or polling when `preparedStatements` is false. */
      readonly listenUrl?: string;
      /** How prepared statements are planned (default `generic`; `auto` on Citus). */
      readonly planCache?: PlanCacheMode;
    }
  | {
      readonly kind: 'pglite';
      /** Directory for the embedded database; absent = in memory. */
      readonly dataDir?: string;
    }
  | {
      /** An already open PGlite, owned by the caller (tests share one per file). */
      readonly kind: 'pglite-instance';
      readonly instance: PGlite;
    };

/** An open database: the Kysely handle plus what closing it takes. */
export interface OpenDatabase {
  readonly db: Kysely<Database>;
  readonly engine: EngineKind;
  /** The pg pool (PostgreSQL engine only), for LISTEN connections and diagnostics. */
  readonly pool: pg.Pool | null;
  /**
   * Where LISTEN connects (PostgreSQL engine): the pool's server, or a
   * direct URL given for it; null behind a pooler without one (waiters poll).
   */
  readonly listen?: { readonly connectionString: string } | null;
  /** The PGlite instance (embedded engine only). */
  readonly pglite: PGlite | null;
  close(): Promise<void>;
}

/** Opens the database an options object names. */
export async function openDatabase(options: DatabaseOptions): Promise<OpenDatabase> {
  switch (options.kind) {
    case 'postgres':
      return openPostgres(options);
    case 'pglite':
      return openPGlite(options.dataDir);
    case 'pglite-instance':
      await applyPlannerSettings(options.instance);
      return {
        db: new Kysely<Database>({ dialect: new PGliteDialect(options.instance) }),
        engine: 'pglite',
        pool: null,
        pglite: options.instance,
        close: async () => {},
      };
  }
}

function openPostgres(options: Extract<DatabaseOptions, { kind: 'postgres' }>): OpenDatabase {
  const statementTimeoutMs = options.statementTimeoutMs ?? 30_000;
  const prepared = options.preparedStatements ?? true;
  const planCache = options.planCache ?? 'generic';
  const sessionSettings = {
    statement_timeout: statementTimeoutMs,
    // A transaction left open by a crashed caller must not pin the vacuum horizon.
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    options: plannerOptions(planCache),
  };
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // The client-side twin: a server that stops answering (network gone)
    // fails the query instead of leaving it waiting forever. Behind a
    // pooler it is the only timeout of statements outside transactions.
    query_timeout: statementTimeoutMs + 5_000,
    application_name: 'taskqueue',
    // Behind a pooler, settings given at connect would stay on whichever
    // server connection served the first client (PgBouncer refuses them
    // outright): they are set per transaction instead.
    ...(prepared ? sessionSettings : {}),
    // Notice a server that vanished without a reset (failover, network gone).
    keepAlive: true,
  });
  // An idle client that loses its server emits 'error' on the pool; without a
  // listener Node would end the process. The next query reconnects.
  pool.on('error', () => {});
  // A client in use emits 'error' too when its server goes (pg_ctl -m
  // immediate, a cut connection), and the pool listens only to idle ones:
  // unheard, that error ended the process. The query in flight fails on its
  // own (TRANSIENT_ERROR) and the broken client is discarded on release.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    // On Citus forced generic plans fail most multi-CTE statements (`could
    // not create distributed plan`): there the session plans as PostgreSQL
    // chooses, whatever the setting. Queued before the client's first query.
    if (prepared && planCache === 'generic') client.query(CITUS_PLAN_CACHE).catch(() => {});
  });
  const statementOptions = prepared
    ? { prepared: true, transactionSettings: '' }
    : { prepared: false, transactionSettings: transactionSettings(statementTimeoutMs, planCache) };
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: preparedStatementPool(pool, statementOptions) }),
  });
  return {
    db,
    engine: 'postgres',
    pool,
    listen: prepared || options.listenUrl !== undefined ? { connectionString: options.listenUrl ?? options.url } : null,
    pglite: null,
    close: () => db.destroy(),
  };
}

async function openPGlite(dataDir: string | undefined): Promise<OpenDatabase> {
  // The engine is loaded when it is opened: a process on PostgreSQL (and
  // every CLI command) would load its WebAssembly glue for nothing.
  const [{ PGlite }, { initPGliteDataDir, pgliteStartParams }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('./pglite-init.js'),
  ]);
  let lock: DataDirLock | null = null;
  let instance: PGlite;
  if (dataDir === undefined) {
    instance = await PGlite.create({ startParams: pgliteStartParams() });
  } else {
    lock = await acquireDataDirLock(dataDir);
    try {
      const pgdata = join(dataDir, 'pgdata');
      await initPGliteDataDir(pgdata);
      instance = await PGlite.create({ dataDir: pgdata, startParams: pgliteStartParams() });
    } catch (error) {
      await lock.release();
      throw new QueueError('TRANSIENT_ERROR', `could not open the embedded database in ${dataDir}: ${String(error)}`, {
        dataDir,
      });
    }
  }
  await applyPlannerSettings(instance);
  const db = new Kysely<Database>({ dialect: new PGliteDialect(instance) });
  return {
    db,
    engine: 'pglite',
    pool: null,
    pglite: instance,
    close: async () => {
      await db.destroy();
      await instance.close();
      await lock?.release();
    },
  };
}
