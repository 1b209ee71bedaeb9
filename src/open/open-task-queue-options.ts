import type { Clock } from '../core/clock.js';
import type { CronConfig } from '../core/cron/cron-job.js';
import type { CronClock, CronEvents } from '../core/cron/cron-scheduler.js';
import type { PushEvents } from '../core/push/dispatcher/push-transport.js';
import type { Logger } from '../core/logger.js';
import type { ServiceConfig } from '../core/queue-config.js';
import type { TaskEvents } from '../core/task-events.js';
import type { Environment } from '../config/service-settings.js';
import type { DatabaseOptions } from '../store/engine/database.js';

/** Options of `openTaskQueue`; each defaults to the environment (DATABASE_URL, TASKQUEUE_*). */
export interface OpenTaskQueueOptions {
  /** PostgreSQL connection string; absent (and no DATABASE_URL) = embedded PGlite. */
  readonly databaseUrl?: string | null;
  /**
   * Path to queue.xml or queue.yaml, or a validated configuration (default ./queue.xml, else ./queue.yaml; with none, the
   * database's queues, written by none; a fresh database gets a sample). It must agree with the database's, unless `ownQueues`.
   */
  readonly config?: string | ServiceConfig;
  /** Write `config` (given or found, never the sample) as the queue definitions, retiring queues it lacks (default false; `taskqueue serve` does). */
  readonly ownQueues?: boolean;
  /** Write an owner's configuration even if an earlier revision wrote it and a later one replaced it (`config sync --force`). */
  readonly forceQueues?: boolean;
  /** App Engine `target` to base URL, for push queues and cron jobs (default TASKQUEUE_TARGET_URLS). */
  readonly targetUrls?: ReadonlyMap<string, string>;
  /** The project id the REST paths name. */
  readonly project?: string;
  /** The embedded engine's data directory; `':memory:'` keeps it in memory. */
  readonly dataDir?: string;
  /** Schema of the service's tables (default `taskqueue`). */
  readonly schema?: string;
  /** PostgreSQL pool size (default 10). */
  readonly poolSize?: number;
  /**
   * Named prepared statements (default true, or TASKQUEUE_PREPARED_STATEMENTS).
   * False behind a pooler in transaction mode (PgBouncer): statements run
   * unnamed and no setting is given at connect.
   */
  readonly preparedStatements?: boolean;
  /**
   * A direct PostgreSQL URL for LISTEN (default TASKQUEUE_LISTEN_DATABASE_URL),
   * when databaseUrl goes through a pooler. Without one, and with prepared
   * statements off, long-polling leases poll instead of being notified.
   */
  readonly listenDatabaseUrl?: string | null;
  /** How long deleted names stay held, in days (default 7). */
  readonly tombstoneDays?: number;
  /** How long tasks dropped by the retry limit stay in the dead letters, in days (default 7). */
  readonly deadLetterDays?: number;
  /** How often the cleanup job runs, in ms (default 60000; 0 = never). */
  readonly cleanupIntervalMs?: number;
  /** Told of tasks added, leased, deleted, lapsed and dead-lettered (metrics); default: nowhere. */
  readonly events?: TaskEvents;
  /** Where the service logs (config loaded, migrations applied, database lost and regained, maintenance runs); default: nowhere. */
  readonly logger?: Logger;
  /**
   * How long to wait for a PostgreSQL server that does not answer yet, in seconds, retrying with
   * back-off and a log line per attempt (default 0: one attempt; the server passes TASKQUEUE_DB_WAIT_SECONDS).
   */
  readonly databaseWaitSeconds?: number;
  /** Environment to take defaults from (default: the process's). */
  readonly env?: Environment;
  /** Deliver push tasks from this process (default true, or TASKQUEUE_DISPATCH). */
  readonly dispatch?: boolean;
  /** Base URL of push queues without `<target-url>` (default TASKQUEUE_PUSH_BASE_URL). */
  readonly pushBaseUrl?: string | null;
  /** Sign each push request's Bearer token with the local issuer's key (default true, or TASKQUEUE_PUSH_SIGNING). */
  readonly pushSigning?: boolean;
  /** The `iss` of push tokens (default the local issuer's, `urn:taskqueue:local`). */
  readonly pushIssuer?: string;
  /** Told of each push attempt (metrics). */
  readonly pushEvents?: PushEvents;
  /** How long `close()` lets push requests in flight finish, in ms (default TASKQUEUE_SHUTDOWN_GRACE_SECONDS). */
  readonly shutdownGraceMs?: number;
  /** The cron.yaml / cron.xml path, or its jobs, or false for none (default TASKQUEUE_CRON, else ./cron.yaml, else ./cron.xml). */
  readonly cron?: string | CronConfig | false;
  /** Fire the cron jobs from this process (default true; every process may: each firing is one task). */
  readonly cronFiring?: boolean;
  /** Told of each cron firing this process tries (metrics). */
  readonly cronEvents?: CronEvents;
  /** How often to look for queues other processes made, changed or deleted through the Cloud Tasks API, in ms (default 1000 on PostgreSQL, 0 on the embedded engine, which one process holds; 0 = only when asked). */
  readonly apiQueuesCheckMs?: number;
}

/** What the wiring (servers, the CLI, tests) may give besides the public options. */
export interface WiringOptions extends OpenTaskQueueOptions {
  /** Use this database instead of opening one (a `pglite-instance` is the caller's to close). */
  readonly database?: DatabaseOptions;
  /** Node's clock for name holds and long-poll deadlines (tests). */
  readonly now?: Clock;
  /** The cron scheduler's clock (tests; default the database's now()). */
  readonly cronClock?: CronClock;
  /** How often to look for newer queue definitions, in ms (default 10000; 0 = only when asked). */
  readonly definitionsCheckMs?: number;
}
