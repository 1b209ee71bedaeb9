import type { Operator } from '../../src/core/audit-log.js';
import type { QueueOperations } from '../../src/core/queue-operations.js';
import type { TaskQueue } from '../../src/core/task-queue.js';

/** Who the tests act as through the operator API. */
export const TEST_OPERATOR: Operator = { actor: 'test@example.com', source: 'test' };

interface Operable {
  getQueue(name: string): TaskQueue;
  operate(name: string, operator: Operator): QueueOperations;
}

const services = new Set<Operable>();

/** Makes a service's queues known to `operatorOf` (openTestService does it for its services). */
export function registerService<S extends Operable>(service: S): S {
  services.add(service);
  return service;
}

/**
 * The operator API (acting as TEST_OPERATOR) of the service a queue handle
 * came from: tests that hold a handle pause or purge through the core's
 * one operator API, as every front-end does.
 */
export function operatorOf(queue: TaskQueue): QueueOperations {
  for (const service of services) {
    try {
      if (service.getQueue(queue.name) === queue) return service.operate(queue.name, TEST_OPERATOR);
    } catch {
      // Not this service's queue.
    }
  }
  throw new Error(`operatorOf: the service of queue "${queue.name}" was not registered (registerService)`);
}
