import { parseArgs } from 'node:util';
import { isQueueError } from '../core/errors.js';
import { settingsFromEnvironment, type Environment, type ServiceSettings } from '../config/service-settings.js';
import { checkConfigCommand } from './commands/check-config.js';
import { migrateCommand } from './commands/migrate.js';
import { serveCommand } from './commands/serve.js';
import { runTokenCommand } from './commands/token.js';

const USAGE = `Usage: taskqueue <command> [options]

Commands:
  serve          Run the service: migrations, queue config, REST API, /healthz
  migrate        Apply database migrations and exit
  check-config   Validate a queue.xml or queue.yaml file: taskqueue check-config FILE
  token          Print an access token of the local issuer:
                 taskqueue token --email E [--scope S] [--ttl SECONDS]
  help           Show this text

Options of serve and migrate (each overrides its environment variable):
  --database-url URL   DATABASE_URL: PostgreSQL; without it the embedded engine runs
  --data-dir DIR       TASKQUEUE_DATA_DIR: embedded engine directory (default ./data)
  --config FILE        TASKQUEUE_CONFIG: queue.xml or queue.yaml (default ./queue.xml, else a built-in sample)
  --project ID         TASKQUEUE_PROJECT: project id of the REST paths (default local)
  --schema NAME        TASKQUEUE_SCHEMA: schema of the tables (default taskqueue)
  --port N             PORT (default 8080)
  --host ADDR          HOST (default 0.0.0.0)
`;

const FLAGS = {
  'database-url': { type: 'string' },
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  project: { type: 'string' },
  schema: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs one CLI command; resolves to the process exit code. */
export async function runCli(argv: readonly string[], env: Environment, out = process.stdout, err = process.stderr): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        out.write(USAGE);
        return command === undefined ? 1 : 0;
      case 'check-config': {
        const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
        return await checkConfigCommand(positionals, settingsFromEnvironment(env), out);
      }
      case 'migrate':
        return await migrateCommand(settingsWithFlags(rest, env), out);
      case 'token':
        out.write(`${await runTokenCommand(rest, env)}\n`);
        return 0;
      case 'serve':
        return await serveCommand(settingsWithFlags(rest, env), env);
      default:
        err.write(`taskqueue: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    err.write(`taskqueue ${command}: ${describe(error)}\n`);
    return 1;
  }
}

/** Settings from the environment, overridden by command-line flags. */
export function settingsWithFlags(args: readonly string[], env: Environment): ServiceSettings {
  const { values } = parseArgs({ args: [...args], options: FLAGS, strict: true });
  const overrides: Record<string, string | undefined> = {
    DATABASE_URL: values['database-url'],
    TASKQUEUE_DATA_DIR: values['data-dir'],
    TASKQUEUE_CONFIG: values.config,
    TASKQUEUE_PROJECT: values.project,
    TASKQUEUE_SCHEMA: values.schema,
    PORT: values.port,
    HOST: values.host,
  };
  const merged: Record<string, string | undefined> = { ...env };
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined) merged[key] = value;
  return settingsFromEnvironment(merged);
}

function describe(error: unknown): string {
  if (isQueueError(error)) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
