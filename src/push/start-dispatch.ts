import { PushDispatcher } from '../core/dispatcher/push-dispatcher.js';
import type { PushEvents, PushTokenSigner } from '../core/dispatcher/push-transport.js';
import { isHeldByForm } from '../core/generated-name.js';
import type { Logger } from '../core/logger.js';
import type { ServiceConfig } from '../core/queue-config.js';
import { PgPushStore } from '../store/pg-push-store.js';
import type { PgTaskStore } from '../store/pg-task-store.js';
import { HttpDelivery } from './http-delivery.js';

export interface PushDispatchOptions {
  readonly store: PgTaskStore;
  readonly config: ServiceConfig;
  readonly queueIds: ReadonlyMap<string, number>;
  readonly tombstoneRetentionMs: number;
  readonly logger: Logger;
  readonly signer?: PushTokenSigner;
  readonly events?: PushEvents;
  /** App Engine targets to base URLs, for cron firings whose job names a target. */
  readonly targetUrls?: ReadonlyMap<string, string>;
}

/** A running dispatcher of this process. */
export interface PushDispatch {
  /** Claims nothing more; requests in flight get `graceMs` to finish. */
  stop(graceMs: number): Promise<void>;
}

/** Starts delivering the push queues of `config` over HTTP (see PushDispatcher). */
export function startPushDispatch(options: PushDispatchOptions): PushDispatch {
  const transport = new HttpDelivery();
  const queues = options.config.queues
    .filter((queue) => queue.mode === 'push')
    .map((config) => ({ queueId: options.queueIds.get(config.name)!, config }));
  const dispatcher = new PushDispatcher({
    store: new PgPushStore(options.store),
    transport,
    queues,
    logger: options.logger,
    heldByForm: (name) => isHeldByForm(name, Date.now(), options.tombstoneRetentionMs),
    ...(options.signer ? { signer: options.signer } : {}),
    ...(options.events ? { events: options.events } : {}),
    ...(options.targetUrls ? { targetUrls: options.targetUrls } : {}),
  });
  dispatcher.start();
  return {
    async stop(graceMs) {
      await dispatcher.stop(graceMs);
      await transport.close().catch(() => {});
    },
  };
}
