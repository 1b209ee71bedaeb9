import {
  DEFAULT_LEASE_RATE,
  DEFAULT_RETRY_PARAMETERS,
  defaultQueueConfig,
  type QueueConfig,
  type ServiceConfig,
} from '../../src/core/queue-config.js';

/** A pull queue with no limits (lease rate unlimited so tests can lease freely). */
export function pullQueue(name: string, overrides: Partial<QueueConfig> = {}): QueueConfig {
  return {
    name,
    mode: 'pull',
    maxLeases: null,
    storageLimitBytes: null,
    leaseRate: null,
    retry: DEFAULT_RETRY_PARAMETERS,
    acl: { userEmails: [], writerEmails: [] },
    ...overrides,
  };
}

/** A service configuration with the default queue plus the given queues. */
export function serviceConfig(queues: QueueConfig[], overrides: Partial<ServiceConfig> = {}): ServiceConfig {
  return {
    source: 'test-config',
    totalStorageLimitBytes: null,
    adminEmails: [],
    queues: [defaultQueueConfig(), ...queues],
    ...overrides,
  };
}

export { DEFAULT_LEASE_RATE };
