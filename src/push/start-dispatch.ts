import type { PushDispatch, PushDispatchPlan } from '../core/push/dispatcher/push-dispatch.js';
import { PushDispatcher } from '../core/push/dispatcher/push-dispatcher.js';
import type { PushTokenSigner } from '../core/push/dispatcher/push-transport.js';
import type { Logger } from '../core/logger.js';
import { PgPushStore } from '../store/push/pg-push-store.js';
import type { PgTaskStore } from '../store/pg-task-store.js';
import { HttpDelivery } from './http-delivery.js';

/** What push delivery runs on in this process: the store, the signer, the routes. */
export interface PushDispatchWiring {
  readonly store: PgTaskStore;
  readonly logger: Logger;
  readonly signer?: PushTokenSigner;
  /** App Engine targets to base URLs, for cron firings whose job names a target. */
  readonly targetUrls?: ReadonlyMap<string, string>;
}

/**
 * Starts delivering the service's push queues over HTTP (see
 * PushDispatcher): the service gives the plan (its queues, its name-hold
 * rule on its clock) when it starts delivery (TaskQueueService.startDispatch).
 */
export function startPushDispatch(wiring: PushDispatchWiring, plan: PushDispatchPlan): PushDispatch {
  const transport = new HttpDelivery();
  const dispatcher = new PushDispatcher({
    store: new PgPushStore(wiring.store),
    transport,
    queues: plan.queues,
    logger: wiring.logger,
    heldByForm: plan.heldByForm,
    ...(wiring.signer ? { signer: wiring.signer } : {}),
    ...(plan.events ? { events: plan.events } : {}),
    ...(wiring.targetUrls ? { targetUrls: wiring.targetUrls } : {}),
  });
  dispatcher.start();
  return {
    async stop(graceMs) {
      await dispatcher.stop(graceMs);
      await transport.close().catch(() => {});
    },
    update(queues) {
      dispatcher.update(queues);
    },
  };
}
