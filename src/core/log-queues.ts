import type { CronJob } from './cron/cron-job.js';
import type { DefinitionsRevision, DefinitionsRole } from './queue-definitions.js';
import { routeOfTarget, unroutedTargets, type ServiceConfig, type TargetRoutes } from './queue-config.js';
import { queueFacts } from './queue-facts.js';
import type { Logger } from './logger.js';

/**
 * The start log's account of the queues: whose definitions this process
 * serves, each queue's effective settings (limits included: a retry limit
 * of 0 reads as "no retry", not as a number to guess at; on a pull queue,
 * where it means no task is ever leased, the line is a warning), and a
 * warning for every App Engine target that has no route, of a queue or a
 * cron job.
 */
export function logQueues(
  logger: Logger,
  config: ServiceConfig,
  facts: {
    readonly role: DefinitionsRole;
    readonly wrote: boolean;
    readonly revision: number | null;
    readonly superseded?: DefinitionsRevision | null;
    readonly routes: TargetRoutes;
    readonly cronJobs: readonly Pick<CronJob, 'name' | 'target'>[];
  },
): void {
  const { role, wrote, revision, routes } = facts;
  if (config.source === 'built-in') {
    logger.warn(
      { queues: config.queues.map((q) => q.name) },
      'running on the built-in sample configuration: no queue.xml or queue.yaml here, TASKQUEUE_CONFIG not set, and the database defined no queues',
    );
  } else if (facts.superseded) {
    logger.warn(
      { source: config.source, revision, replaced: facts.superseded.revision },
      `this configuration is revision ${facts.superseded.revision}'s, which revision ${String(revision)} replaced: serving revision ${String(revision)}, writing nothing ` +
        '(an older instance during a deploy must not undo it; to go back on purpose: taskqueue config sync --force FILE)',
    );
  } else if (role === 'use') {
    logger.info(
      { source: config.source, revision },
      `no configuration here: serving the queue definitions of ${config.source}, writing none`,
    );
  } else {
    logger.info(
      { source: config.source, revision, wrote },
      wrote
        ? `queue definitions written (revision ${String(revision)})`
        : `queue definitions current (revision ${String(revision)})`,
    );
  }
  for (const queue of config.queues) {
    const settings = queueFacts(queue, routes);
    const line = `queue ${queue.name}: ${settings.join(', ')}`;
    // A pull queue that leases nothing is rarely meant (App Engine's stub
    // rule: its tasks die at their first lease attempt); a push queue with
    // the same limit still delivers each task once.
    if (queue.mode === 'pull' && queue.maxLeases === 0) {
      logger.warn(
        { queue: queue.name, settings },
        `${line}; task_retry_limit 0 on a pull queue: no task of it is ever leased, each goes to the dead letters at its first lease attempt; raise or remove the limit if workers should get its tasks`,
      );
    } else logger.info({ queue: queue.name, settings }, line);
  }
  for (const { queue, target } of unroutedTargets(config, routes)) {
    logger.warn(
      { queue, target },
      `queue ${queue}: target "${target}" has no route in TASKQUEUE_TARGET_URLS; its tasks go to TASKQUEUE_PUSH_BASE_URL`,
    );
  }
  for (const job of facts.cronJobs) {
    if (job.target !== null && routeOfTarget(job.target, routes) === null) {
      logger.warn(
        { job: job.name, target: job.target },
        `cron job ${job.name}: target "${job.target}" has no route in TASKQUEUE_TARGET_URLS; its requests go to its queue's URL`,
      );
    }
  }
}
