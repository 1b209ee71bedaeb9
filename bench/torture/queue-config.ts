import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITED_QUEUE, MAIN_QUEUE, RETRY_LIMIT, RUNNER_QUEUE, STORAGE_LIMIT } from './workload.js';

/** Writes the harness's queue.xml into dir and answers its path. */
export function writeQueueConfig(dir: string): string {
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
</queue-entries>
`,
  );
  return path;
}
