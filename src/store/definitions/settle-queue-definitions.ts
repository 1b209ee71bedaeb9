import { sql } from 'kysely';
import { CRON_QUEUE_NAME } from '../../core/cron/built-in-cron-queue.js';
import { QueueError } from '../../core/errors.js';
import { defaultQueueConfig, type ServiceConfig } from '../../core/queue-config.js';
import {
  definitionDifferences,
  definitionsFingerprint,
  isBuiltInCronQueue,
  sameDefinition,
  type DefinitionsRevision,
  type DefinitionsRole,
} from '../../core/queue-definitions.js';
import { configuredQueues, currentRevision, revisionWith } from './configured-queues.js';
import { type StoreContext } from '../store-context.js';
import { refreshPushSettings, upsertQueues, writeQueues } from './sync-queues.js';

/** The definitions a process serves once settled, and whether it wrote them. */
export interface SettledDefinitions {
  readonly config: ServiceConfig;
  readonly ids: ReadonlyMap<string, number>;
  /** The revision served (null only on a database written before sql/0018 that this process did not write). */
  readonly revision: number | null;
  readonly wrote: boolean;
  /** An owner whose configuration a later revision replaced, served that revision instead (`superseded: 'serve'`): the revision its file is. */
  readonly superseded: DefinitionsRevision | null;
}

/** What an owner whose configuration a later revision replaced does: refused (config sync), or serves the newer revision (a server). */
export type SupersededOwner = 'refuse' | 'serve';

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
 * - `own`: writes `config` when it differs from the newest revision, the
 *   built-in cron queue kept when it has no cron file of its own. A
 *   configuration that an earlier revision wrote and a later one replaced
 *   is not written unless `force`: it is an old instance starting during a
 *   rolling deploy (or a roll back), which must not undo the new one. A
 *   server serves the newer revision and says so (`superseded: 'serve'`);
 *   `config sync`, an operator's deliberate write, is refused
 *   (docs/operations.md). When its configuration is the newest, it still
 *   writes its own base URLs into `push_settings`, as every server start
 *   did before revisions: the SQL API's add checks that a push queue has
 *   somewhere to deliver from there.
 */
export async function settleQueueDefinitions(
  ctx: StoreContext,
  config: ServiceConfig,
  role: DefinitionsRole,
  options: { readonly force?: boolean; readonly superseded?: SupersededOwner } = {},
): Promise<SettledDefinitions> {
  return ctx.db.transaction().execute(async (trx) => {
    const tx = { db: trx, schema: ctx.schema };
    await sql`/* queue_definitions_lock */ select pg_advisory_xact_lock(hashtext(${`${ctx.schema}.queue_definitions`}))`.execute(
      trx,
    );
    const stored = await configuredQueues(tx);
    const write = async (written: ServiceConfig = config): Promise<SettledDefinitions> => {
      const ids = await writeQueues(tx, written);
      return {
        config: written,
        ids,
        revision: (await currentRevision(tx))?.revision ?? null,
        wrote: true,
        superseded: null,
      };
    };
    // A fresh database, or one holding only the built-in sample (nobody's definitions), takes a configuration as given.
    const fresh = !stored.anyQueue && stored.revision === null;
    if (fresh || (role !== 'use' && stored.revision?.source === 'built-in')) return write();
    const serveStored = (source: string, superseded: DefinitionsRevision | null = null): SettledDefinitions => ({
      config: { ...stored.config, source },
      ids: stored.ids,
      revision: stored.revision?.revision ?? null,
      wrote: false,
      superseded,
    });
    if (role === 'use') return serveStored(stored.config.source);
    if (role === 'check') {
      const named = { ...config, queues: config.queues.filter((queue) => !isImplicitDefault(queue)) };
      const differences = definitionDifferences(named, stored.config, stored.partial);
      if (differences.length > 0) throw disagreement(config, stored.revision, differences);
      return serveStored(`${config.source} (agrees with ${stored.config.source})`);
    }
    const owned = keepBuiltInCron(config, stored.config);
    const fingerprint = definitionsFingerprint(owned);
    if (stored.revision?.fingerprint === fingerprint) {
      await refreshPushSettings(tx, owned);
      // Only the built-in cron queue can be missing here (it is in no fingerprint): an owner without a cron file wrote these.
      const missing = owned.queues.filter((queue) => !stored.ids.has(queue.name));
      const ids = missing.length === 0 ? stored.ids : new Map([...stored.ids, ...(await upsertQueues(tx, missing))]);
      return { config: owned, ids, revision: stored.revision.revision, wrote: false, superseded: null };
    }
    const earlier = stored.revision === null ? null : await revisionWith(tx, fingerprint);
    if (earlier !== null && stored.revision !== null && !options.force) {
      if (options.superseded !== 'serve') throw superseded(config, earlier, stored.revision);
      return serveStored(
        `${stored.config.source} (revision ${stored.revision.revision}; ${config.source} is revision ${earlier.revision}'s, which it replaced)`,
        earlier,
      );
    }
    return write(owned);
  });
}

/**
 * The owner's configuration with the database's built-in cron queue kept
 * when it has no `cron` queue itself: an owner without a cron file (a
 * server that runs no jobs, `config sync` from an operator's shell) must
 * not retire the queue the other servers' cron jobs fire through.
 */
function keepBuiltInCron(config: ServiceConfig, stored: ServiceConfig): ServiceConfig {
  if (config.queues.some((queue) => queue.name === CRON_QUEUE_NAME)) return config;
  const cron = stored.queues.find(isBuiltInCronQueue);
  return cron === undefined ? config : { ...config, queues: [...config.queues, cron] };
}

/** A `default` queue the file did not define (the reader adds App Engine's): not something the file says. */
function isImplicitDefault(queue: ServiceConfig['queues'][number]): boolean {
  return sameDefinition(queue, defaultQueueConfig());
}

function describe(revision: DefinitionsRevision | null): string {
  return revision === null
    ? 'the database'
    : `the database (revision ${revision.revision}, written from ${revision.source} at ${revision.writtenAt.toISOString()})`;
}

function disagreement(
  config: ServiceConfig,
  revision: DefinitionsRevision | null,
  differences: readonly string[],
): QueueError {
  return new QueueError(
    'INVALID_CONFIG',
    `${config.source} disagrees with the queue definitions in ${describe(revision)}: ${differences.join('; ')}. ` +
      "Nothing was written. Give this process the same configuration, or none (it then serves the database's queues); " +
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
