import type { Command } from 'commander';
import type { ServiceSettings } from '../../config/service-settings.js';
import type { CommandContext } from '../command-context.js';
import {
  commandDatabaseOptions,
  settingsFromFlags,
  withDatabaseOptions,
  type DatabaseFlags,
} from '../connection-options.js';

/** `taskqueue migrate`: applies pending migrations (safe to run while servers start). */
export async function migrateCommand(settings: ServiceSettings, out: NodeJS.WritableStream): Promise<number> {
  // Loaded when run, not when the CLI starts (the database drivers are most of its start-up).
  const [{ openDatabase }, { migrate }] = await Promise.all([
    import('../../store/engine/database.js'),
    import('../../store/migrate/migrate.js'),
  ]);
  const database = await openDatabase(commandDatabaseOptions(settings, 1));
  try {
    const result = await migrate(database.db, settings.schema);
    out.write(
      result.applied.length === 0
        ? `schema ${result.schema} is up to date (version ${result.current})\n`
        : `schema ${result.schema}: applied ${result.applied.join(', ')} (now at version ${result.current})\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

/** Registers `taskqueue migrate`. */
export function registerMigrate(program: Command, ctx: CommandContext): void {
  withDatabaseOptions(
    program
      .command('migrate')
      .summary('apply database migrations and exit')
      .description(
        'Applies the pending migrations of sql/ to the database, under an advisory lock (safe while servers start).',
      ),
  ).action(async (flags: DatabaseFlags) => {
    ctx.exitCode = await migrateCommand(settingsFromFlags(ctx.io.env, flags), ctx.io.out as NodeJS.WritableStream);
  });
}
