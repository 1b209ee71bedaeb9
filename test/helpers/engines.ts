import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import type { ServiceConfig } from '../../src/core/queue-config.js';
import type { TaskEvents } from '../../src/core/task-events.js';
import type { Kysely } from 'kysely';
import type { Clock } from '../../src/core/clock.js';
import type { QueueOperations } from '../../src/core/queue-operations.js';
import {
  openServiceParts,
  openTaskQueue,
  type OpenTaskQueue,
  type OpenTaskQueueOptions,
} from '../../src/open-task-queue.js';
import type { DatabaseOptions } from '../../src/store/engine/database.js';
import type { PgTaskStore } from '../../src/store/pg-task-store.js';
import type { Database } from '../../src/store/schema.js';
import { registerService, TEST_OPERATOR } from './operator-of.js';

export type TestEngine = 'postgres' | 'pglite';

/**
 * The engines every store test runs against: both, or PostgreSQL alone in
 * the Citus suite (vitest.citus.config.ts, whose PostgreSQL is a Citus
 * coordinator; PGlite is tested by the default suite).
 */
export const ENGINES: readonly TestEngine[] =
  process.env.TASKQUEUE_TEST_ENGINES === 'postgres' ? ['postgres'] : ['postgres', 'pglite'];

let sharedPGlite: Promise<PGlite> | null = null;

/** One PGlite per test file (forks pool: module scope is per file); each test gets its own schema. */
export function testPGlite(): Promise<PGlite> {
  sharedPGlite ??= PGlite.create();
  return sharedPGlite;
}

export function testPgUrl(): string {
  const url = inject('pgUrl');
  // Provided by the db project's global setup only (vitest.config.ts).
  if (!url) throw new Error('this test needs PostgreSQL: list it in the db project, not in UNIT (vitest.config.ts)');
  return url;
}

/** A fresh schema name, so tests never see each other's rows. */
export function freshSchema(): string {
  return `t_${randomBytes(6).toString('hex')}`;
}

/**
 * For a test file that makes schemas itself (not through openTestService):
 * a freshSchema that remembers what it handed out, dropped when the file
 * ends. Call it at the top level of the file.
 */
export function droppedAfterAll(): () => string {
  const schemas: string[] = [];
  afterAll(async () => dropSchemas(...schemas));
  return () => {
    const schema = freshSchema();
    schemas.push(schema);
    return schema;
  };
}

/** Drops schemas a test made on PostgreSQL itself (tests share one database). */
export async function dropSchemas(...schemas: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: testPgUrl() });
  await client.connect();
  try {
    for (const schema of schemas) {
      await client.query(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`);
      await client.query(dropSchemaRolesSql(schema));
    }
  } finally {
    await client.end();
  }
}

/**
 * Drops the roles the SQL API's migration made for a schema
 * (<schema>_producer, <schema>_consumer): roles belong to the whole
 * cluster and outlive the schema. Run after the schema is dropped.
 */
export function dropSchemaRolesSql(schema: string): string {
  return `drop role if exists ${pg.escapeIdentifier(`${schema}_producer`)}, ${pg.escapeIdentifier(`${schema}_consumer`)}`;
}

export interface TestService {
  readonly service: OpenTaskQueue;
  /** The service's store, for tests that reach below the core. */
  readonly store: PgTaskStore;
  /** The service's database. */
  readonly db: Kysely<Database>;
  /** The operator API of a queue, acting as TEST_OPERATOR (test/helpers/operator-of.ts). */
  operate(queue: string): QueueOperations;
  readonly schema: string;
  readonly engine: TestEngine;
  /**
   * Opens another service on the same database and schema (another process, in effect); closed with this one.
   * A configuration that differs from the database's needs `{ ownQueues: true }` (the owner writes it).
   */
  openAnother(config?: ServiceConfig, options?: Partial<OpenTaskQueueOptions>): Promise<OpenTaskQueue>;
  /** Runs SQL as an operator would (schema-qualified names: use `${schema}.tasks`). */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

/** Opens the service on a fresh schema of the given engine. */
export async function openTestService(
  engine: TestEngine,
  config: ServiceConfig,
  options: {
    poolSize?: number;
    tombstoneDays?: number;
    deadLetterDays?: number;
    statementTimeoutMs?: number;
    events?: TaskEvents;
    now?: Clock;
    /** More options of openTaskQueue (push signing, dispatch). */
    open?: Partial<OpenTaskQueueOptions>;
  } = {},
): Promise<TestService> {
  const schema = freshSchema();
  let database: DatabaseOptions;
  let admin: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>; end(): Promise<void> };
  if (engine === 'postgres') {
    database = {
      kind: 'postgres',
      url: testPgUrl(),
      poolSize: options.poolSize ?? 10,
      ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
    };
    const pool = new pg.Pool({ connectionString: testPgUrl(), max: 2 });
    admin = { query: (text, params) => pool.query(text, params), end: () => pool.end() };
  } else {
    const instance = await testPGlite();
    database = { kind: 'pglite-instance', instance };
    admin = { query: (text, params) => instance.query(text, params), end: async () => {} };
  }
  const {
    service,
    store,
    database: opened,
  } = await openServiceParts({
    config,
    schema,
    database,
    cleanupIntervalMs: 0,
    ...(options.tombstoneDays === undefined ? {} : { tombstoneDays: options.tombstoneDays }),
    ...(options.deadLetterDays === undefined ? {} : { deadLetterDays: options.deadLetterDays }),
    ...(options.events === undefined ? {} : { events: options.events }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...options.open,
  });
  registerService(service);
  const others: OpenTaskQueue[] = [];
  return {
    service,
    store,
    db: opened.db,
    operate: (queue) => service.operate(queue, TEST_OPERATOR),
    schema,
    engine,
    openAnother: async (otherConfig = config, otherOptions = {}) => {
      const other = await openTaskQueue({
        config: otherConfig,
        schema,
        database: engine === 'postgres' ? { kind: 'postgres', url: testPgUrl(), poolSize: 2 } : database,
        cleanupIntervalMs: 0,
        ...otherOptions,
      });
      others.push(other);
      return registerService(other);
    },
    sql: async <R>(text: string, params?: unknown[]) => (await admin.query(text, params)).rows as R[],
    close: async () => {
      for (const other of others) await other.close();
      await service.close();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.query(dropSchemaRolesSql(schema));
      await admin.end();
    },
  };
}
