/**
 * The REST benchmark's load generator: a process of its own (started by
 * bench/lib/rest-bench.ts with fork), so that its CPU shows as a separate
 * process and never runs on the server's event loop. It receives jobs over
 * IPC, runs each against the server on loopback and answers the figures.
 */
import { runJob, type LoadJob, type LoadTarget } from './lib/rest-load-jobs.js';

interface JobMessage {
  readonly target: LoadTarget;
  readonly job: LoadJob;
}

if (!process.send) throw new Error('bench/rest-load.ts runs as a child process (fork) of the benchmark');
process.on('message', (message: JobMessage) => {
  runJob(message.target, message.job).then(
    (result) => process.send!({ result }),
    (error: unknown) => process.send!({ error: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
