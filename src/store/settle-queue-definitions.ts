import { sql } from 'kysely';
import { QueueError } from '../core/errors.js';
import { defaultQueueConfig, type ServiceConfig } from '../core/queue-config.js';
import { definitionDifferences, definitionsFingerprint, sameDefinition, type DefinitionsRevision, type DefinitionsRole } from '../core/queue-definitions.js';
import { configuredQueues, currentRevision, revisionWith } from './configured-queues.js';
import { type StoreContext } from './store-context.js';
import { writeQueues } from './sync-queues.js';

/** The definitions a process serves once settled, and whether it wrote them. */
export interface SettledDefinitions {
  readonly config: ServiceConfig;
  readonly ids: ReadonlyMap<string, number>;
  /** The revision served (null only on a database written before sql/0029 that this process did not write). */
  readonly revision: number | null;
  readonly wrote: boolean;
}

/**
 * One owner per definition. Decides, under a transaction-scoped advisory
 * lock (two owners starting at once write one after the other), what this
 * process serves:
 *
 * - `use` (no configuration): the database's definitions, untouched; a
 *   fresh database gets `config` (the built-in sample, the quick start),
 *   which any configuration later replaces.
 * - `check` (a configuration, not the owner): written to a fresh database;
 *   otherwise every queue it names must be defined alike in the database
 *   (QueueError INVALID_CONFIG naming the queues otherwise), and it serves
 *   the database's definitions, queues it does not name included.
 * - `own`: writes `config` when it differs from the newest revision. A
 *   configuration that an earlier revision wrote and a later one replaced is
 *   refused unless `force`: it is an old instance starting during a rolling
 *   deploy, which must not undo the new one (docs/operations.md).
 */
export async function settleQueueDefinitions(
  ctx: StoreContext,
  config: ServiceConfig,
  role: DefinitionsRole,
  options: { readonly force?: boolean } = {},
): Promise<SettledDefinitions> {
  return ctx.db.transaction().execute(async (trx) => {
    const tx = { db: trx, schema: ctx.schema };
    await sql`/* queue_definitions_lock */ select pg_advisory_xact_lock(hashtext(${`${ctx.schema}.queue_definitions`}))`.execute(trx);
    const stored = await configuredQueues(tx);
    const write = async (): Promise<SettledDefinitions> => {
      const ids = await writeQueues(tx, config);
      return { config, ids, revision: (await currentRevision(tx))?.revision ?? null, wrote: true };
    };
    // A fresh database, or one holding only the built-in sample (nobody's definitions), takes a configuration as given.
    const fresh = !stored.anyQueue && stored.revision === null;
    if (fresh || (role !== 'use' && stored.revision?.source === 'built-in')) return write();
    const serveStored = (source: string): SettledDefinitions => ({ config: { ...stored.config, source }, ids: stored.ids, revision: stored.revision?.revision ?? null, wrote: false });
    if (role === 'use') return serveStored(stored.config.source);
    if (role === 'check') {
      const named = { ...config, queues: config.queues.filter((queue) => !isImplicitDefault(queue)) };
      const differences = definitionDifferences(named, stored.config, stored.partial);
      if (differences.length > 0) throw disagreement(config, stored.revision, differences);
      return serveStored(`${config.source} (agrees with ${stored.config.source})`);
    }
    const fingerprint = definitionsFingerprint(config);
    if (stored.revision?.fingerprint === fingerprint) return { config, ids: stored.ids, revision: stored.revision.revision, wrote: false };
    const earlier = stored.revision === null ? null : await revisionWith(tx, fingerprint);
    if (earlier !== null && stored.revision !== null && !options.force) throw superseded(config, earlier, stored.revision);
    return write();
  });
}

/** A `default` queue the file did not define (the reader adds App Engine's): not something the file says. */
function isImplicitDefault(queue: ServiceConfig['queues'][number]): boolean {
  return sameDefinition(queue, defaultQueueConfig());
}

function describe(revision: DefinitionsRevision | null): string {
  return revision === null ? 'the database' : `the database (revision ${revision.revision}, written from ${revision.source} at ${revision.writtenAt.toISOString()})`;
}

function disagreement(config: ServiceConfig, revision: DefinitionsRevision | null, differences: readonly string[]): QueueError {
  return new QueueError(
    'INVALID_CONFIG',
    `${config.source} disagrees with the queue definitions in ${describe(revision)}: ${differences.join('; ')}. ` +
      'Nothing was written. Give this process the same configuration, or none (it then serves the database\'s queues); ' +
      'to make this configuration the definitions, run taskqueue config sync FILE, start taskqueue serve with it, ' +
      'or open with openTaskQueue({ config, ownQueues: true })',
  );
}

function superseded(config: ServiceConfig, earlier: DefinitionsRevision, current: DefinitionsRevision): QueueError {
  return new QueueError(
    'INVALID_CONFIG',
    `${config.source} is the configuration of revision ${earlier.revision} (written from ${earlier.source} at ${earlier.writtenAt.toISOString()}), ` +
      `which ${describe(current)} replaced: an older instance starting during a deploy must not undo a newer one. ` +
      'To go back to it on purpose, run taskqueue config sync --force FILE first',
  );
}
