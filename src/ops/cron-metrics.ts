import { Counter, type Registry } from 'prom-client';
import type { CronEvents } from '../core/cron/cron-scheduler.js';

/**
 * `taskqueue_cron_firings_total{job,outcome}`: the firings this process
 * tried, by outcome: added (this process added the task), already_added
 * (another process had: the firing happened once), skipped (its task name
 * was taken by a task the cron service did not add: the firing did not
 * happen) and failed (the task could not be added). `cron list` says why
 * for the last two. Summed over every process, `added` counts each firing
 * once.
 */
export function createCronMetrics(registry: Registry): CronEvents {
  const firings = new Counter({
    name: 'taskqueue_cron_firings_total',
    help: 'Cron firings this process tried, by job and outcome: added, already_added (by another process), skipped (task name taken by a task cron did not add), failed.',
    labelNames: ['job', 'outcome'] as const,
    registers: [registry],
  });
  return {
    fired(job, outcome) {
      firings.inc({ job, outcome });
    },
  };
}
