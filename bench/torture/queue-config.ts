import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CAPPED_MAX_CONCURRENT,
  CAPPED_PUSH_QUEUE,
  LIMITED_QUEUE,
  MAIN_QUEUE,
  PUSH_MAX_CONCURRENT,
  PUSH_QUEUE,
  RATED_PUSH,
  RATED_PUSH_QUEUE,
  RETRY_LIMIT,
  RUNNER_QUEUE,
  STORAGE_LIMIT,
} from './workload.js';

/**
 * Writes the harness's queue.xml into dir and answers its path. The push
 * queues deliver to the harness's sink at `sinkUrl`; their retries are quick
 * (0.1 s doubling to 2 s, no limit) so a failed attempt comes back within the run.
 */
export function writeQueueConfig(dir: string, sinkUrl: string): string {
  const path = join(dir, 'queue.xml');
  writeFileSync(
    path,
    `<?xml version="1.0" encoding="UTF-8"?>
<queue-entries>
  <queue>
    <name>${MAIN_QUEUE}</name>
    <mode>pull</mode>
    <retry-parameters><task-retry-limit>${RETRY_LIMIT}</task-retry-limit></retry-parameters>
    <lease-rate>unlimited</lease-rate>
  </queue>
  <queue>
    <name>${LIMITED_QUEUE}</name>
    <mode>pull</mode>
    <storage-limit>${STORAGE_LIMIT / 1024}K</storage-limit>
    <lease-rate>unlimited</lease-rate>
  </queue>
  <queue>
    <name>${RUNNER_QUEUE}</name>
    <mode>pull</mode>
    <lease-rate>unlimited</lease-rate>
  </queue>
  <queue>
    <name>${PUSH_QUEUE}</name>
    <mode>push</mode>
    <rate>2000/s</rate>
    <bucket-size>200</bucket-size>
    <max-concurrent-requests>${PUSH_MAX_CONCURRENT}</max-concurrent-requests>
    <target-url>${sinkUrl}</target-url>
    <retry-parameters><min-backoff-seconds>0.1</min-backoff-seconds><max-backoff-seconds>2</max-backoff-seconds></retry-parameters>
  </queue>
  <queue>
    <name>${RATED_PUSH_QUEUE}</name>
    <mode>push</mode>
    <rate>${RATED_PUSH.ratePerSecond}/s</rate>
    <bucket-size>${RATED_PUSH.bucketSize}</bucket-size>
    <target-url>${sinkUrl}</target-url>
    <retry-parameters><min-backoff-seconds>0.1</min-backoff-seconds><max-backoff-seconds>2</max-backoff-seconds></retry-parameters>
  </queue>
  <queue>
    <name>${CAPPED_PUSH_QUEUE}</name>
    <mode>push</mode>
    <rate>100/s</rate>
    <max-concurrent-requests>${CAPPED_MAX_CONCURRENT}</max-concurrent-requests>
    <target-url>${sinkUrl}</target-url>
    <retry-parameters><min-backoff-seconds>0.1</min-backoff-seconds><max-backoff-seconds>2</max-backoff-seconds></retry-parameters>
  </queue>
</queue-entries>
`,
  );
  return path;
}
