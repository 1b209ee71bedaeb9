import { addRequests, bulkAdd } from './bulk-add.js';
import { deleteTasks, modifyTaskLease, queryAndOwnTasks } from './lease-calls.js';
import {
  fetchQueues,
  fetchQueueStats,
  fetchTask,
  pauseQueue,
  purgeQueue,
  queryTasks,
  refusedByConfiguration,
} from './queue-calls.js';
import type { Message } from './protocol.js';
import { ApplicationError } from './service-error.js';
import type { TaskQueueHost } from './taskqueue-host.js';

/** One method of the `taskqueue` service: its request and response types and what it does. */
export interface TaskQueueCall {
  readonly request: string;
  readonly response: string;
  run(host: TaskQueueHost, request: Message): Promise<Message>;
}

/**
 * The `taskqueue` service's methods, as the SDK calls them. BulkAdd and
 * Add answer the SDK's per-task results; whole-call failures throw
 * (QueueError or ApplicationError) and the handler answers them as the
 * envelope's application_error.
 */
export const TASKQUEUE_CALLS: Readonly<Record<string, TaskQueueCall>> = {
  BulkAdd: {
    request: 'BulkAddRequest',
    response: 'BulkAddResponse',
    run: async (host, request) => ({
      taskResult: (await bulkAdd(host, addRequests(request))).map((r) => ({
        result: r.result,
        ...(r.chosenName === undefined ? {} : { chosen_task_name: Buffer.from(r.chosenName) }),
      })),
    }),
  },
  Add: {
    request: 'AddRequest',
    response: 'AddResponse',
    run: async (host, request) => {
      const [outcome] = await bulkAdd(host, [request]);
      if (outcome !== undefined && outcome.result !== 0)
        throw new ApplicationError(outcome.result, 'the task was not added');
      return outcome?.chosenName === undefined ? {} : { chosen_task_name: Buffer.from(outcome.chosenName) };
    },
  },
  Delete: { request: 'DeleteRequest', response: 'DeleteResponse', run: deleteTasks },
  QueryAndOwnTasks: { request: 'QueryAndOwnTasksRequest', response: 'QueryAndOwnTasksResponse', run: queryAndOwnTasks },
  ModifyTaskLease: { request: 'ModifyTaskLeaseRequest', response: 'ModifyTaskLeaseResponse', run: modifyTaskLease },
  PurgeQueue: { request: 'QueueNameRequest', response: 'Empty', run: purgeQueue },
  FetchQueueStats: { request: 'FetchQueueStatsRequest', response: 'FetchQueueStatsResponse', run: fetchQueueStats },
  FetchQueues: { request: 'FetchQueuesRequest', response: 'FetchQueuesResponse', run: fetchQueues },
  QueryTasks: { request: 'QueryTasksRequest', response: 'QueryTasksResponse', run: queryTasks },
  FetchTask: { request: 'FetchTaskRequest', response: 'FetchTaskResponse', run: fetchTask },
  PauseQueue: { request: 'PauseQueueRequest', response: 'Empty', run: pauseQueue },
  DeleteQueue: { request: 'QueueNameRequest', response: 'Empty', run: refusedByConfiguration('DeleteQueue') },
  UpdateStorageLimit: {
    request: 'UpdateStorageLimitRequest',
    response: 'Empty',
    run: refusedByConfiguration('UpdateStorageLimit'),
  },
};
