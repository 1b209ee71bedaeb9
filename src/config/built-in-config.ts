import {
  DEFAULT_LEASE_RATE,
  DEFAULT_RETRY_PARAMETERS,
  defaultQueueConfig,
  type ServiceConfig,
} from '../core/queue-config.js';

/**
 * The configuration used when no queue.xml / queue.yaml is given: the
 * `default` queue plus one pull queue, `pull-queue`, with no ACL entries and
 * the default lease rate. It lets a fresh install (and the quick-start in the
 * docs) lease tasks without writing a file first.
 */
export function builtInConfig(): ServiceConfig {
  return {
    source: 'built-in',
    totalStorageLimitBytes: null,
    adminEmails: [],
    queues: [
      defaultQueueConfig(),
      {
        name: 'pull-queue',
        mode: 'pull',
        maxLeases: null,
        storageLimitBytes: null,
        leaseRate: DEFAULT_LEASE_RATE,
        retry: DEFAULT_RETRY_PARAMETERS,
        acl: { userEmails: [], writerEmails: [] },
      },
    ],
  };
}

/** The built-in configuration written as queue.xml, for `init`-style commands and documentation. */
export const BUILT_IN_QUEUE_XML = `<?xml version="1.0" encoding="UTF-8"?>
<queue-entries>
  <queue>
    <name>pull-queue</name>
    <mode>pull</mode>
  </queue>
</queue-entries>
`;
