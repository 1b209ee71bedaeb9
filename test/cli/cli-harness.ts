import pg from 'pg';
import { Readable } from 'node:stream';
import type { Environment } from '../../src/config/service-settings.js';
import type { ServiceConfig } from '../../src/core/queue-config.js';
import { runCli } from '../../src/cli/run-cli.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { openTestService, testPgUrl, type TestService } from '../helpers/engines.js';

/** What one CLI run printed and returned. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly outBytes: Buffer;
  readonly err: string;
}

/** An in-memory output stream; `isTTY` as a terminal would say. */
export class CapturedOutput {
  readonly chunks: Buffer[] = [];
  constructor(readonly isTTY = false) {}
  write(chunk: string | Uint8Array): boolean {
    this.chunks.push(Buffer.from(chunk));
    return true;
  }
  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** Runs the CLI in this process with captured streams; stdin is the given bytes (or an empty pipe). */
export async function cli(
  argv: string[],
  env: Environment,
  options: { stdin?: string | Buffer; ttyErr?: boolean } = {},
): Promise<CliRun> {
  const out = new CapturedOutput();
  const err = new CapturedOutput(options.ttyErr ?? false);
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]);
  const code = await runCli(argv, env, out, err, stdin);
  return { code, out: out.bytes.toString('utf8'), outBytes: out.bytes, err: err.bytes.toString('utf8') };
}

/** The JSON lines of an output. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The queues of the CLI tests: `work`, `other`, and `fragile` (a task may be leased once). */
export function cliConfig(): ServiceConfig {
  return serviceConfig([pullQueue('work'), pullQueue('other'), pullQueue('fragile', { maxLeases: 1 })]);
}

/** A fresh PostgreSQL schema with the queues written to it (as a server would), and the CLI's environment for it. */
export async function openCliDatabase(config = cliConfig()): Promise<TestService & { readonly env: Environment }> {
  const t = await openTestService('postgres', config);
  return Object.assign(t, { env: { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: t.schema } });
}

/** Everything a database holds for the service's schema, to show a command changed nothing. */
export async function snapshot(t: TestService): Promise<unknown> {
  const tables = ['queues', 'tasks', 'task_tombstones', 'task_dead_letters'];
  const result: Record<string, unknown> = {};
  for (const table of tables) result[table] = await t.sql(`select * from ${t.schema}.${table} order by 1, 2`);
  return result;
}

/** SQL on the test PostgreSQL, as an operator would run it (schema-qualified names); end() when done. */
export function pgAdmin(): { sql(text: string, params?: unknown[]): Promise<unknown[]>; end(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: testPgUrl(), max: 1 });
  return { sql: async (text, params) => (await pool.query(text, params)).rows as unknown[], end: () => pool.end() };
}
