/**
 * A consumer built on the REST worker runner (taskqueue/client), in a
 * process of its own so the runner phase can kill -9 it: works the
 * `runners` queue and prints `processed <name>` once a task's fenced
 * delete succeeded. SIGTERM drains it. Run with `node --import tsx`.
 */
import { TaskQueueClient } from '../../src/client/index.js';
import { RUNNER_QUEUE } from './workload.js';

const [url, token] = process.argv.slice(2);
const client = new TaskQueueClient({ baseUrl: url!, getToken: () => token! });
const worker = client.queue(RUNNER_QUEUE).work(
  async (_task, { signal }) => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
    if (signal.aborted) throw signal.reason;
  },
  { concurrency: 8, batchSize: 4, leaseSeconds: 3, pollIntervalMs: 1000 },
);
worker.on('processed', (task) => process.stdout.write(`processed ${task.name}\n`));
process.once('SIGTERM', () => void worker.stop().then(() => process.exit(0)));
