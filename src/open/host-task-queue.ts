import { DEFAULT_LOCAL_ISSUER } from '../auth/local-issuer.js';
import { PushTokenSigner } from '../auth/push-token-signer.js';
import { cronScheduleOf, scheduledCronJobs } from '../config/cron-queue.js';
import type { CronConfig } from '../core/cron/cron-job.js';
import type { ServiceConfig } from '../core/queue-config.js';
import { startPushDispatch } from '../push/start-dispatch.js';
import type { OpenDatabase } from '../store/engine/database.js';
import { PgAuthStore } from '../store/pg-auth-store.js';
import { PgCronStore } from '../store/cron/pg-cron-store.js';
import type { PgTaskStore } from '../store/pg-task-store.js';
import { PgApiQueueStore } from '../store/definitions/api-queues.js';
import { apiQueueResolver } from './api-queue-wiring.js';
import { HostedTaskQueue } from './hosted-task-queue.js';
import type { ResolvedOpenOptions } from './resolve-open-options.js';

/** An open, migrated database whose queues are written, and what it serves. */
export interface ServedDatabase {
  readonly database: OpenDatabase;
  readonly store: PgTaskStore;
  readonly config: ServiceConfig;
  readonly queueIds: ReadonlyMap<string, number>;
  /** The revision of the queue definitions this process serves (null: none written). */
  readonly revision: number | null;
  /** This process's cron file; null without one (its recorded jobs are still listed and run). */
  readonly cron: CronConfig | null;
}

/**
 * Builds the service over a served database and starts it: the stores
 * beside the task store (auth, cron), push delivery's wiring (the signer,
 * the routes). The service owns the lifecycle of what runs in the
 * background: cleanup, push delivery, cron and the definitions watch.
 */
export function hostTaskQueue(served: ServedDatabase, resolved: ResolvedOpenOptions): HostedTaskQueue {
  const { options, settings, logger, schema, project } = resolved;
  const ctx = { db: served.database.db, schema };
  const authStore = new PgAuthStore(ctx);
  const signer =
    (options.pushSigning ?? settings.pushSigning)
      ? new PushTokenSigner(authStore, {
          issuer: options.pushIssuer ?? DEFAULT_LOCAL_ISSUER.issuer,
          email: settings.pushIdentity ?? `taskqueue@${project}`,
        })
      : null;
  const pushWiring = {
    store: served.store,
    logger,
    targetUrls: resolved.targetUrls,
    ...(signer ? { signer: (audience: string) => signer.sign(audience) } : {}),
  };
  return new HostedTaskQueue(
    {
      ...served,
      schema,
      project,
      authStore,
      definitionsCheckMs: options.definitionsCheckMs ?? 10_000,
    },
    served.config,
    served.queueIds,
    {
      tombstoneRetentionMs: resolved.tombstoneRetentionMs,
      deadLetterRetentionMs: resolved.deadLetterRetentionMs,
      logger,
      ...(options.events === undefined ? {} : { events: options.events }),
      ...(options.cleanupIntervalMs === undefined ? {} : { cleanupIntervalMs: options.cleanupIntervalMs }),
      ...(options.now === undefined ? {} : { now: options.now }),
      push: {
        start: (plan) => startPushDispatch(pushWiring, plan),
        dispatch: options.dispatch ?? settings.dispatch,
        graceMs: resolved.shutdownGraceMs,
        ...(options.pushEvents ? { events: options.pushEvents } : {}),
      },
      apiQueues: {
        store: new PgApiQueueStore(ctx),
        holdMs: resolved.tombstoneRetentionMs,
        // PGlite admits one process per data directory: the process that makes a change applies it itself.
        checkMs: options.apiQueuesCheckMs ?? (served.database.engine === 'pglite' ? 0 : 1000),
        resolve: apiQueueResolver(resolved.pushBaseUrl, resolved.targetUrls),
      },
      cron: {
        jobs: scheduledCronJobs(served.cron),
        store: new PgCronStore(ctx),
        scheduleOf: cronScheduleOf,
        firing: options.cronFiring ?? true,
        ...(options.cronEvents ? { events: options.cronEvents } : {}),
        ...(options.cronClock ? { clock: options.cronClock } : {}),
      },
    },
  ).start();
}
