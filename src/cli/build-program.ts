import { Command } from 'commander';
import type { CommandContext } from './command-context.js';
import { registerAdd } from './commands/add.js';
import { registerCheckConfig } from './commands/check-config.js';
import { registerConfig } from './commands/config-sync.js';
import { registerCron } from './commands/cron.js';
import { registerDeadLetters } from './commands/dead-letters.js';
import { registerDelete } from './commands/delete.js';
import { registerExport } from './commands/export.js';
import { registerGet } from './commands/get.js';
import { registerImport } from './commands/import.js';
import { registerLease } from './commands/lease.js';
import { registerWork } from './commands/work.js';
import { registerMigrate } from './commands/migrate.js';
import { registerPause } from './commands/pause.js';
import { registerPurge } from './commands/purge.js';
import { registerQueues } from './commands/queues.js';
import { registerRedrive } from './commands/redrive.js';
import { registerRunNow } from './commands/run-now.js';
import { registerSearch } from './commands/search.js';
import { registerAttempts } from './commands/attempts.js';
import { registerResume } from './commands/resume.js';
import { registerServe } from './commands/serve.js';
import { registerStats } from './commands/stats.js';
import { registerToken } from './commands/token.js';
import { packageVersion } from './package-version.js';

const EPILOG = `
Operator commands talk to the database (DATABASE_URL, or the embedded data directory),
or with --url (TASKQUEUE_URL) to a running server, as an administrator (--token).

Exit codes: 0 ok, 1 failure, 2 usage (nothing was done), 3 queue or task not found.
Docs: docs/cli.md`;

/**
 * The `taskqueue` command line. Commander parses and writes help; it never
 * exits the process (exitOverride) and writes only to the run's streams,
 * so `--help` on any command prints help and does nothing else.
 */
export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('taskqueue')
    .description(
      'PostgreSQL-native task queue service, pull and push queues and cron (App Engine Task Queue REST v1beta2)',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'print help for a command and do nothing else')
    .helpCommand('help [command]', 'print help for a command')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (text) => void ctx.io.out.write(text),
      writeErr: (text) => void ctx.io.err.write(text),
    })
    .addHelpText('after', EPILOG);
  for (const register of [
    registerServe,
    registerMigrate,
    registerCheckConfig,
    registerConfig,
    registerCron,
    registerToken,
    registerQueues,
    registerStats,
    registerAdd,
    registerGet,
    registerLease,
    registerSearch,
    registerWork,
    registerDelete,
    registerPurge,
    registerPause,
    registerResume,
    registerDeadLetters,
    registerRedrive,
    registerRunNow,
    registerAttempts,
    registerExport,
    registerImport,
  ]) {
    register(program, ctx);
  }
  return program;
}
