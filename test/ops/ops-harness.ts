import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DEFAULT_SETTINGS, type Environment, type ServiceSettings } from '../../src/config/service-settings.js';
import type { Logger } from '../../src/core/logger.js';
import { createLogger } from '../../src/ops/create-logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { freshSchema, testPgUrl } from '../helpers/engines.js';

/** One parsed log line. */
export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** pino's numeric levels. */
export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/** A real pino logger (the server's own, redaction included) writing into memory. */
export function captureLogger(): { logger: Logger; lines: LogLine[]; raw: string[] } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const logger = createLogger({
    level: 'debug',
    pretty: false,
    destination: {
      write(text: string) {
        raw.push(text);
        lines.push(JSON.parse(text) as LogLine);
      },
    },
  });
  return { logger, lines, raw };
}

/** Pull queues `jobs` (unlimited lease rate) and `fragile` (dropped to the dead letters after one lease). */
export const OPS_QUEUE_YAML = `queue:
- name: jobs
  mode: pull
  lease_rate: unlimited
- name: fragile
  mode: pull
  lease_rate: unlimited
  retry_parameters:
    task_retry_limit: 1
`;

/** Writes a queue.yaml into a fresh temporary directory; returns its path. */
export function writeQueueYaml(text = OPS_QUEUE_YAML): string {
  const dir = mkdtempSync(join(tmpdir(), 'tq-ops-'));
  const path = join(dir, 'queue.yaml');
  writeFileSync(path, text);
  return path;
}

export interface OpsServer {
  readonly running: RunningServer;
  readonly url: string;
  readonly schema: string;
  readonly lines: LogLine[];
  readonly raw: string[];
  /** SQL as an operator would run it (schema-qualified names). */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** A REST path of a queue: `/taskqueue/v1beta2/projects/local/taskqueues/<queue>`. */
  path(queue: string): string;
  close(): Promise<void>;
}

/** The real server (startServer) in this process, on PostgreSQL, a fresh schema and a loopback port. */
export async function startOpsServer(
  options: { settings?: Partial<ServiceSettings>; env?: Environment } = {},
): Promise<OpsServer> {
  const schema = freshSchema();
  const { logger, lines, raw } = captureLogger();
  const settings: ServiceSettings = {
    ...DEFAULT_SETTINGS,
    databaseUrl: testPgUrl(),
    schema,
    host: '127.0.0.1',
    port: 0,
    configPath: writeQueueYaml(),
    poolSize: 4,
    ...options.settings,
  };
  const running = await startServer({ settings, env: { TASKQUEUE_AUTH: 'off', ...options.env }, logger });
  const admin = new pg.Pool({ connectionString: testPgUrl(), max: 2 });
  return {
    running,
    url: running.url,
    schema,
    lines,
    raw,
    sql: async <R>(text: string, params?: unknown[]) => (await admin.query(text, params)).rows as R[],
    path: (queue: string) => `/taskqueue/v1beta2/projects/local/taskqueues/${queue}`,
    close: async () => {
      await running.shutdown(1000);
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    },
  };
}
