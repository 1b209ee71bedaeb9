import { QueueError } from '../core/errors.js';
import { checkBaseUrl } from '../core/push/push-url.js';
import { DEFAULT_TRIAGE_THRESHOLDS, type TriageThresholds } from '../core/triage-thresholds.js';
import { checkDatabaseUrl } from './database-url.js';
import { triageSetting } from './triage-settings.js';

/** TASKQUEUE_PLAN_CACHE: `generic` (forced generic plans, the default) or `auto` (required on Citus). */
export const PLAN_CACHE_SETTINGS = ['generic', 'auto'] as const;
export type PlanCacheSetting = (typeof PLAN_CACHE_SETTINGS)[number];

/**
 * Settings of a service process, from the environment (or CLI flags). Pure:
 * it takes the environment as an argument; only src/environment.ts reads
 * process.env and passes it in.
 */
export interface ServiceSettings {
  /** PostgreSQL connection string; null = the embedded engine (PGlite). */
  readonly databaseUrl: string | null;
  /** HTTP port (default 8080). */
  readonly port: number;
  /** Interface to listen on (default 127.0.0.1: loopback only, since /metrics is open by default; the Docker image sets HOST=0.0.0.0). */
  readonly host: string;
  /** queue.xml / queue.yaml path; null = ./queue.xml if present, else the built-in sample. */
  readonly configPath: string | null;
  /** cron.yaml / cron.xml path (TASKQUEUE_CRON); null = ./cron.yaml if present, else ./cron.xml, else no jobs. */
  readonly cronPath: string | null;
  /** The project id REST paths name (default `local`). */
  readonly project: string;
  /** The one Cloud Tasks location served (TASKQUEUE_LOCATION, default `us-central1`); the project is `project`. */
  readonly location: string;
  /** The embedded engine's directory (default ./data). */
  readonly dataDir: string;
  /** The PostgreSQL schema of the service's tables (default `taskqueue`). */
  readonly schema: string;
  /** Connections in the PostgreSQL pool (default 10). */
  readonly poolSize: number;
  /** How long deleted names stay held, in days (default 7). */
  readonly tombstoneDays: number;
  /** How long tasks dropped by the retry limit stay in the dead letters, in days (default 7). */
  readonly deadLetterDays: number;
  /** Most queues a configuration may define, not counting `default` (default 100). */
  readonly maxActiveQueues: number;
  /**
   * Named prepared statements and settings given at connect (default on).
   * Off behind a pooler in transaction mode (PgBouncer).
   */
  readonly preparedStatements: boolean;
  /**
   * How prepared statements are planned (TASKQUEUE_PLAN_CACHE): `generic`
   * from the first call (default), or `auto`, PostgreSQL's choice, which a
   * Citus cluster requires (docs/scaling.md).
   */
  readonly planCache: PlanCacheSetting;
  /** A direct PostgreSQL URL for LISTEN when DATABASE_URL goes through a pooler; null = none. */
  readonly listenDatabaseUrl: string | null;
  /** Serve the web console at /console (TASKQUEUE_CONSOLE, `on` by default; `off` removes it). */
  readonly console: boolean;
  /** What the console's triage flags (TASKQUEUE_CONSOLE_TRIAGE, name=value pairs; docs/console.md "Triage"). */
  readonly triage: TriageThresholds;
  /** pino level of the server's log (LOG_LEVEL, default `info`). */
  readonly logLevel: LogLevel;
  /** Who may read GET /metrics (TASKQUEUE_METRICS: `off`, `on` = anyone, `token` = administrators; default `on`). */
  readonly metrics: MetricsAccess;
  /** How long start-up waits for an unreachable database, in seconds (TASKQUEUE_DB_WAIT_SECONDS, default 30). */
  readonly dbWaitSeconds: number;
  /** How long a shutdown lets in-flight requests finish, in seconds (TASKQUEUE_SHUTDOWN_GRACE_SECONDS, default 10). */
  readonly shutdownGraceSeconds: number;
  /** Base URL of push tasks for queues without `<target-url>` (TASKQUEUE_PUSH_BASE_URL); null = none. */
  readonly pushBaseUrl: string | null;
  /**
   * Where App Engine targets go (TASKQUEUE_TARGET_URLS: `worker=http://worker:8080,v2.api=http://api:8080`):
   * a push queue's or cron job's `target` (a service, or version.service) to a base URL. Empty = none.
   */
  readonly targetUrls: ReadonlyMap<string, string>;
  /** Whether this process delivers push tasks (TASKQUEUE_DISPATCH, `on` by default). */
  readonly dispatch: boolean;
  /** Whether push requests carry a signed `Authorization: Bearer` token (TASKQUEUE_PUSH_SIGNING, `on` by default). */
  readonly pushSigning: boolean;
  /** The `email` claim of push tokens (TASKQUEUE_PUSH_IDENTITY; default `taskqueue@<project>`); null = the default. */
  readonly pushIdentity: string | null;
  /** Port of App Engine's API protocol (`POST /rpc_http`, docs/app-engine.md; TASKQUEUE_APPENGINE_API_PORT); null = not served. */
  readonly appEngineApiPort: number | null;
  /** Interface it listens on (TASKQUEUE_APPENGINE_API_HOST, default 127.0.0.1: its callers carry no credentials). */
  readonly appEngineApiHost: string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const METRICS_ACCESS = ['off', 'on', 'token'] as const;
export type MetricsAccess = (typeof METRICS_ACCESS)[number];

export type Environment = Readonly<Record<string, string | undefined>>;

export const DEFAULT_SETTINGS: ServiceSettings = {
  databaseUrl: null,
  port: 8080,
  host: '127.0.0.1',
  configPath: null,
  cronPath: null,
  project: 'local',
  location: 'us-central1',
  dataDir: './data',
  schema: 'taskqueue',
  poolSize: 10,
  tombstoneDays: 7,
  deadLetterDays: 7,
  maxActiveQueues: 100,
  preparedStatements: true,
  planCache: 'generic',
  listenDatabaseUrl: null,
  console: true,
  triage: DEFAULT_TRIAGE_THRESHOLDS,
  logLevel: 'info',
  metrics: 'on',
  dbWaitSeconds: 30,
  shutdownGraceSeconds: 10,
  pushBaseUrl: null,
  targetUrls: new Map(),
  dispatch: true,
  pushSigning: true,
  pushIdentity: null,
  appEngineApiPort: null,
  appEngineApiHost: '127.0.0.1',
};

/** Reads settings from environment variables; unset or empty ones keep their defaults. */
export function settingsFromEnvironment(env: Environment): ServiceSettings {
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  return {
    databaseUrl: databaseUrlSetting(text('DATABASE_URL')),
    port: integerSetting('PORT', text('PORT'), DEFAULT_SETTINGS.port, 0, 65535),
    host: text('HOST') ?? DEFAULT_SETTINGS.host,
    configPath: text('TASKQUEUE_CONFIG') ?? DEFAULT_SETTINGS.configPath,
    cronPath: text('TASKQUEUE_CRON') ?? DEFAULT_SETTINGS.cronPath,
    project: text('TASKQUEUE_PROJECT') ?? DEFAULT_SETTINGS.project,
    location: locationSetting(text('TASKQUEUE_LOCATION')) ?? DEFAULT_SETTINGS.location,
    dataDir: text('TASKQUEUE_DATA_DIR') ?? DEFAULT_SETTINGS.dataDir,
    schema: text('TASKQUEUE_SCHEMA') ?? DEFAULT_SETTINGS.schema,
    poolSize: integerSetting('TASKQUEUE_POOL_SIZE', text('TASKQUEUE_POOL_SIZE'), DEFAULT_SETTINGS.poolSize, 1, 1000),
    tombstoneDays: numberSetting(
      'TASKQUEUE_TOMBSTONE_DAYS',
      text('TASKQUEUE_TOMBSTONE_DAYS'),
      DEFAULT_SETTINGS.tombstoneDays,
    ),
    deadLetterDays: numberSetting(
      'TASKQUEUE_DEAD_LETTER_DAYS',
      text('TASKQUEUE_DEAD_LETTER_DAYS'),
      DEFAULT_SETTINGS.deadLetterDays,
    ),
    maxActiveQueues: integerSetting(
      'TASKQUEUE_MAX_ACTIVE_QUEUES',
      text('TASKQUEUE_MAX_ACTIVE_QUEUES'),
      DEFAULT_SETTINGS.maxActiveQueues,
      1,
      100_000,
    ),
    console: onOffSetting('TASKQUEUE_CONSOLE', text('TASKQUEUE_CONSOLE'), DEFAULT_SETTINGS.console),
    triage: triageSetting(text('TASKQUEUE_CONSOLE_TRIAGE')),
    logLevel: choiceSetting('LOG_LEVEL', text('LOG_LEVEL')?.toLowerCase(), LOG_LEVELS, DEFAULT_SETTINGS.logLevel),
    metrics: choiceSetting(
      'TASKQUEUE_METRICS',
      text('TASKQUEUE_METRICS')?.toLowerCase(),
      METRICS_ACCESS,
      DEFAULT_SETTINGS.metrics,
    ),
    dbWaitSeconds: numberSetting(
      'TASKQUEUE_DB_WAIT_SECONDS',
      text('TASKQUEUE_DB_WAIT_SECONDS'),
      DEFAULT_SETTINGS.dbWaitSeconds,
    ),
    shutdownGraceSeconds: numberSetting(
      'TASKQUEUE_SHUTDOWN_GRACE_SECONDS',
      text('TASKQUEUE_SHUTDOWN_GRACE_SECONDS'),
      DEFAULT_SETTINGS.shutdownGraceSeconds,
    ),
    preparedStatements: onOffSetting(
      'TASKQUEUE_PREPARED_STATEMENTS',
      text('TASKQUEUE_PREPARED_STATEMENTS'),
      DEFAULT_SETTINGS.preparedStatements,
    ),
    planCache: choiceSetting(
      'TASKQUEUE_PLAN_CACHE',
      text('TASKQUEUE_PLAN_CACHE')?.toLowerCase(),
      PLAN_CACHE_SETTINGS,
      DEFAULT_SETTINGS.planCache,
    ),
    listenDatabaseUrl: text('TASKQUEUE_LISTEN_DATABASE_URL') ?? DEFAULT_SETTINGS.listenDatabaseUrl,
    pushBaseUrl: pushBaseUrlSetting(text('TASKQUEUE_PUSH_BASE_URL')),
    targetUrls: targetUrlsSetting(text('TASKQUEUE_TARGET_URLS')),
    dispatch: onOffSetting('TASKQUEUE_DISPATCH', text('TASKQUEUE_DISPATCH'), DEFAULT_SETTINGS.dispatch),
    pushSigning: onOffSetting('TASKQUEUE_PUSH_SIGNING', text('TASKQUEUE_PUSH_SIGNING'), DEFAULT_SETTINGS.pushSigning),
    pushIdentity: text('TASKQUEUE_PUSH_IDENTITY') ?? DEFAULT_SETTINGS.pushIdentity,
    appEngineApiPort:
      text('TASKQUEUE_APPENGINE_API_PORT') === undefined
        ? DEFAULT_SETTINGS.appEngineApiPort
        : integerSetting('TASKQUEUE_APPENGINE_API_PORT', text('TASKQUEUE_APPENGINE_API_PORT'), 0, 0, 65535),
    appEngineApiHost: text('TASKQUEUE_APPENGINE_API_HOST') ?? DEFAULT_SETTINGS.appEngineApiHost,
  };
}

function databaseUrlSetting(value: string | undefined): string | null {
  return value === undefined ? DEFAULT_SETTINGS.databaseUrl : checkDatabaseUrl(value);
}

function pushBaseUrlSetting(value: string | undefined): string | null {
  if (value === undefined) return null;
  const problem = checkBaseUrl(value);
  if (problem !== null)
    throw new QueueError('INVALID_CONFIG', `TASKQUEUE_PUSH_BASE_URL ${problem}`, { field: 'TASKQUEUE_PUSH_BASE_URL' });
  return value;
}

/** `target=url` pairs, comma-separated; each URL as strict as TASKQUEUE_PUSH_BASE_URL, each target once. */
function targetUrlsSetting(value: string | undefined): ReadonlyMap<string, string> {
  const routes = new Map<string, string>();
  if (value === undefined) return routes;
  const name = 'TASKQUEUE_TARGET_URLS';
  for (const pair of value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const at = pair.indexOf('=');
    const target = at < 0 ? '' : pair.slice(0, at).trim();
    const url = at < 0 ? '' : pair.slice(at + 1).trim();
    if (!/^[a-z0-9][a-z0-9.-]*$/i.test(target) || url === '') {
      throw new QueueError(
        'INVALID_CONFIG',
        `${name} must be target=url pairs separated by commas (worker=http://worker:8080), got "${pair}"`,
        { field: name },
      );
    }
    const problem = checkBaseUrl(url);
    if (problem !== null)
      throw new QueueError('INVALID_CONFIG', `${name}: the URL of target "${target}" ${problem}`, { field: name });
    if (routes.has(target))
      throw new QueueError('INVALID_CONFIG', `${name} names target "${target}" twice`, { field: name });
    routes.set(target, url);
  }
  return routes;
}

function choiceSetting<T extends string>(
  name: string,
  value: string | undefined,
  choices: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  const choice = choices.find((c) => c === value);
  if (choice === undefined) {
    throw new QueueError('INVALID_CONFIG', `${name} must be one of ${choices.join(', ')}, got "${value}"`, {
      field: name,
    });
  }
  return choice;
}

/** `on` or `off`, nothing else: a misspelt switch stops the server rather than being guessed at. */
function onOffSetting(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === 'on' || value === 'off') return value === 'on';
  throw new QueueError('INVALID_CONFIG', `${name} must be "on" or "off", got "${value}"`, { field: name });
}

/** Parses an integer setting strictly: `10abc`, `0x10` and `1.5` are errors, not 10, 16 and 1. */
export function integerSetting(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new QueueError('INVALID_CONFIG', `${name} must be an integer from ${min} to ${max}, got "${value}"`, {
      field: name,
    });
  }
  return Number(value);
}

function numberSetting(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+(\.\d+)?$/.test(value)) {
    throw new QueueError('INVALID_CONFIG', `${name} must be a non-negative number, got "${value}"`, { field: name });
  }
  return Number(value);
}

/** A Cloud Tasks location ID as Google spells them (`us-central1`, `europe-west1`): lower-case letters, digits and hyphens. */
function locationSetting(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(value)) {
    throw new QueueError(
      'INVALID_CONFIG',
      `TASKQUEUE_LOCATION must be a location ID such as us-central1 (lower-case letters, digits and hyphens); got ${JSON.stringify(value)}`,
      { field: 'TASKQUEUE_LOCATION' },
    );
  }
  return value;
}
