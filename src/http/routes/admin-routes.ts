import type { Hono } from 'hono';
import type { ResolvedDeps } from '../app-deps.js';
import { restHandler } from '../rest-handler.js';
import { ADMIN_CRON_PATH, adminCronHistory, adminListCronJobs, adminRunCronJob } from './admin-cron-jobs.js';
import { ADMIN_LIST_DEAD_LETTERS } from './admin-dead-letters.js';
import { ADMIN_DELETE_TASKS, ADMIN_RELEASE_LEASE } from './admin-delete-tasks.js';
import { ADMIN_EXPORT_TASKS } from './admin-export-tasks.js';
import { ADMIN_IMPORT_TASKS } from './admin-import-tasks.js';
import { adminListQueues } from './admin-list-queues.js';
import { ADMIN_PAUSE_QUEUE, ADMIN_RESUME_QUEUE } from './admin-pause-queue.js';
import { ADMIN_PURGE_QUEUE } from './admin-purge-queue.js';
import { ADMIN_QUEUE_STATS } from './admin-queue-stats.js';
import { ADMIN_REDRIVE } from './admin-redrive.js';
import { ADMIN_SEARCH_TASKS } from './admin-search-tasks.js';
import { ADMIN_RUN_NOW, ADMIN_TASK_ATTEMPTS } from './admin-task-attempts.js';

/** Where the operator extension routes live: apart from the v1beta2 paths, so no App Engine path can mean one. */
export const ADMIN_QUEUES_PATH = '/taskqueue/admin/v1/taskqueues';

/**
 * The operator extension routes (docs/cli.md): what `taskqueue ... --url`
 * needs beyond REST v1beta2. Each is the `queue.admin` action: project
 * administrators only, never a queue ACL. Errors in Google's envelope.
 */
export function registerAdminRoutes(app: Hono, deps: ResolvedDeps): void {
  const queue = `${ADMIN_QUEUES_PATH}/:taskqueue`;
  app.get(ADMIN_QUEUES_PATH, adminListQueues(deps));
  app.get(queue, restHandler(deps, ADMIN_QUEUE_STATS));
  app.post(`${queue}/pause`, restHandler(deps, ADMIN_PAUSE_QUEUE));
  app.post(`${queue}/resume`, restHandler(deps, ADMIN_RESUME_QUEUE));
  app.post(`${queue}/purge`, restHandler(deps, ADMIN_PURGE_QUEUE));
  app.get(`${queue}/deadLetters`, restHandler(deps, ADMIN_LIST_DEAD_LETTERS));
  app.post(`${queue}/deadLetters/redrive`, restHandler(deps, ADMIN_REDRIVE));
  app.get(`${queue}/tasks/export`, restHandler(deps, ADMIN_EXPORT_TASKS));
  app.get(`${queue}/tasks/search`, restHandler(deps, ADMIN_SEARCH_TASKS));
  app.post(`${queue}/tasks/import`, restHandler(deps, ADMIN_IMPORT_TASKS));
  app.post(`${queue}/tasks/delete`, restHandler(deps, ADMIN_DELETE_TASKS));
  app.post(`${queue}/tasks/runNow`, restHandler(deps, ADMIN_RUN_NOW));
  app.post(`${queue}/tasks/:task/release`, restHandler(deps, ADMIN_RELEASE_LEASE));
  app.get(`${queue}/tasks/:task/attempts`, restHandler(deps, ADMIN_TASK_ATTEMPTS));
  app.get(ADMIN_CRON_PATH, adminListCronJobs(deps));
  app.post(`${ADMIN_CRON_PATH}/:job/run`, adminRunCronJob(deps));
  app.get(`${ADMIN_CRON_PATH}/:job/firings`, adminCronHistory(deps));
}
