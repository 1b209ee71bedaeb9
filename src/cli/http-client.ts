import type { RunNowSelection, TaskAttempt } from '../core/task-attempt.js';
import type { QueueOverview } from '../core/queue-overview.js';
import type { CronFiringEntry } from '../core/cron/cron-history.js';
import type { CronFiring } from '../core/cron/cron-scheduler.js';
import { ADMIN_CRON_PATH, type CronJobJson } from '../http/routes/admin-cron-jobs.js';
import { ADMIN_QUEUES_PATH } from '../http/routes/admin-routes.js';
import { SEARCH_PARAMETERS, type SearchJson } from '../http/routes/admin-search-tasks.js';
import type { TaskSearch } from '../core/task-search.js';
import type { TaskJson, TasksJson } from '../http/task-json.js';
import { RemoteError } from './remote-error.js';
import type {
  CronJobView,
  DeadLetterRecord,
  ExportLine,
  LeaseRequest,
  NewTaskRecord,
  OperatorClient,
  RunningWorker,
  SearchResult,
  TaskDetail,
  TaskRecord,
  WorkTask,
} from './operator-client.js';
import { TaskQueueClient } from '../client/task-queue-client.js';
import type { TaskHandler } from '../core/worker/task-worker.js';
import type { WorkerOptions } from '../core/worker/worker-options.js';
import { parseExportLine } from '../core/task-export.js';
import { readJsonLines } from './read-json-lines.js';

/** The server's operator paths (docs/cli.md): administrators only. */
const ADMIN_PREFIX = ADMIN_QUEUES_PATH;

/**
 * The operator commands against a running server (`--url`): the REST API
 * v1beta2 for add, lease and delete (with the permissions of a producer or
 * consumer), and the operator extension routes for the rest (an
 * administrator's token). Paths use the short form without the project, so
 * the CLI need not know the server's project id.
 */
export class HttpClient implements OperatorClient {
  readonly target: string;
  readonly #base: string;
  readonly #token: string | undefined;

  constructor(url: string, token: string | undefined) {
    this.#base = url.replace(/\/+$/, '');
    this.#token = token;
    this.target = this.#base;
  }

  async queues(): Promise<QueueOverview[]> {
    const body = (await this.#json('GET', ADMIN_PREFIX)) as { items: QueueOverview[] };
    return body.items;
  }

  async stats(queue: string): Promise<QueueOverview> {
    return (await this.#json('GET', this.#admin(queue))) as QueueOverview;
  }

  /** The REST worker runner of taskqueue/client, on the paths without a project (as the other commands). */
  work(queue: string, handler: TaskHandler<WorkTask>, options: WorkerOptions): RunningWorker {
    const token = this.#token;
    const client = new TaskQueueClient({
      baseUrl: this.#base,
      project: null,
      ...(token === undefined ? {} : { getToken: () => token }),
    });
    return client.queue(queue).work(handler, options);
  }

  /** tasks.get (a consumer's or an administrator's read); the server masks secret header values. */
  async get(queue: string, name: string): Promise<TaskDetail> {
    const task = (await this.#json('GET', `${this.#tasks(queue)}/${encodeURIComponent(name)}`)) as TaskJson;
    if (task.url === undefined) return record(task);
    const push = {
      url: task.url,
      method: task.httpMethod ?? 'POST',
      headers: (task.headers ?? []).map(({ name: key, value }) => [key, value] as const),
      dispatchDeadlineSeconds: task.dispatchDeadlineSeconds ?? null,
    };
    return { ...record(task), push };
  }

  async add(queue: string, task: NewTaskRecord): Promise<TaskRecord> {
    const body: Record<string, unknown> = { payloadBase64: task.payload.toString('base64') };
    if (task.name !== undefined) body.id = task.name;
    if (task.url !== undefined) body.url = task.url;
    if (task.method !== undefined) body.httpMethod = task.method;
    if (task.headers !== undefined) body.headers = task.headers.map(([name, value]) => ({ name, value }));
    if (task.tag !== undefined) body.tag = task.tag;
    // REST v1beta2 has no countdown: the first lease time is computed here (this machine's clock).
    if (task.countdownSeconds !== undefined)
      body.leaseTimestamp = String(Math.round((Date.now() + task.countdownSeconds * 1000) * 1000));
    return record((await this.#json('POST', `${this.#tasks(queue)}`, body)) as TaskJson);
  }

  async lease(queue: string, request: LeaseRequest): Promise<TaskRecord[]> {
    const query = new URLSearchParams({ numTasks: String(request.numTasks), leaseSecs: String(request.leaseSecs) });
    if (request.tag !== undefined) {
      query.set('groupByTag', 'true');
      query.set('tag', request.tag);
    }
    const body = (await this.#json('POST', `${this.#tasks(queue)}/lease?${query}`)) as TasksJson;
    return (body.items ?? []).map(record);
  }

  async delete(queue: string, names: readonly string[]): Promise<boolean[]> {
    // The operators' delete (audited by the server), not the consumers' batchDelete.
    const body = (await this.#json('POST', `${this.#admin(queue)}/tasks/delete`, { names })) as { notFound?: string[] };
    const notFound = new Set(body.notFound ?? []);
    return names.map((name) => !notFound.has(name));
  }

  async purge(queue: string): Promise<number> {
    return ((await this.#json('POST', `${this.#admin(queue)}/purge`)) as { purged: number }).purged;
  }

  async setPaused(queue: string, paused: boolean): Promise<void> {
    await this.#json('POST', `${this.#admin(queue)}/${paused ? 'pause' : 'resume'}`);
  }

  async *deadLetters(queue: string): AsyncIterable<DeadLetterRecord[]> {
    let pageToken: string | undefined;
    do {
      const query = new URLSearchParams({ maxResults: '500', ...(pageToken === undefined ? {} : { pageToken }) });
      const body = (await this.#json('GET', `${this.#admin(queue)}/deadLetters?${query}`)) as {
        items: DeadLetterRecord[];
        nextPageToken?: string;
      };
      if (body.items.length > 0) yield body.items;
      pageToken = body.nextPageToken;
    } while (pageToken !== undefined);
  }

  async redrive(queue: string, names?: readonly string[]): Promise<number> {
    const body = (await this.#json(
      'POST',
      `${this.#admin(queue)}/deadLetters/redrive`,
      names === undefined ? {} : { names },
    )) as {
      redriven: number;
    };
    return body.redriven;
  }

  async runNow(queue: string, selection: RunNowSelection): Promise<number> {
    return ((await this.#json('POST', `${this.#admin(queue)}/tasks/runNow`, selection)) as { ran: number }).ran;
  }

  async attempts(queue: string, name: string): Promise<TaskAttempt[]> {
    const path = `${this.#admin(queue)}/tasks/${encodeURIComponent(name)}/attempts`;
    return ((await this.#json('GET', path)) as { items: TaskAttempt[] }).items;
  }

  async search(queue: string, search: TaskSearch): Promise<SearchResult> {
    const query = new URLSearchParams();
    for (const name of SEARCH_PARAMETERS) {
      const value = search[name];
      if (value !== undefined) query.set(name, value);
    }
    if (search.limit !== undefined) query.set('maxResults', String(search.limit));
    if (search.cursor !== undefined) query.set('pageToken', search.cursor);
    const body = (await this.#json('GET', `${this.#admin(queue)}/tasks/search?${query}`)) as SearchJson;
    return {
      // The fields in the order the database client gives them (--json lines are alike either way).
      tasks: body.items.map(({ name, ...rest }) => ({ name, queue, ...rest })),
      next: body.nextPageToken ?? null,
      scanned: body.scanned,
      bounded: body.bounded,
    };
  }

  async *exportTasks(queue: string): AsyncIterable<ExportLine[]> {
    const response = await this.#send('GET', `${this.#admin(queue)}/tasks/export`);
    if (!response.body) return;
    let page: ExportLine[] = [];
    for await (const { value, line } of readJsonLines(response.body)) {
      page.push(parseExportLine(value, line));
      if (page.length === 100) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }

  async importTasks(queue: string, lines: readonly ExportLine[]): Promise<number> {
    const body = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    const response = await this.#send('POST', `${this.#admin(queue)}/tasks/import`, body, 'application/x-ndjson');
    return ((await response.json()) as { imported: number }).imported;
  }

  async cronJobs(): Promise<CronJobView[]> {
    // JSON carries the times as ISO strings: Dates again, as the database client gives them.
    type Times = 'lastInstant' | 'anchoredAt' | 'lastFiredAt' | 'retiredAt' | 'next';
    type Wire = Omit<CronJobJson, Times> & { [K in Exclude<Times, 'next' | 'anchoredAt'>]: string | null } & {
      anchoredAt: string;
      next: string[];
    };
    const body = (await this.#json('GET', ADMIN_CRON_PATH)) as { items?: Wire[] };
    const date = (at: string | null) => (at === null ? null : new Date(at));
    return (body.items ?? []).map((job) => ({
      ...job,
      lastInstant: date(job.lastInstant),
      anchoredAt: new Date(job.anchoredAt),
      lastFiredAt: date(job.lastFiredAt),
      retiredAt: date(job.retiredAt),
      next: job.next.map((at) => new Date(at)),
    }));
  }

  async cronHistory(name: string, limit: number): Promise<CronFiringEntry[]> {
    type Wire = Omit<CronFiringEntry, 'instant' | 'at'> & { instant: string; at: string };
    const path = `${ADMIN_CRON_PATH}/${encodeURIComponent(name)}/firings?limit=${limit}`;
    const body = (await this.#json('GET', path)) as { items?: Wire[] };
    return (body.items ?? []).map((entry) => ({ ...entry, instant: new Date(entry.instant), at: new Date(entry.at) }));
  }

  async runCronJob(name: string): Promise<CronFiring> {
    const firing = (await this.#json('POST', `${ADMIN_CRON_PATH}/${encodeURIComponent(name)}/run`)) as Omit<
      CronFiring,
      'instant'
    > & { instant: string };
    return { ...firing, instant: new Date(firing.instant) };
  }

  async close(): Promise<void> {}

  #tasks(queue: string): string {
    return `/taskqueue/v1beta2/projects/taskqueues/${encodeURIComponent(queue)}/tasks`;
  }

  #admin(queue: string): string {
    return `${ADMIN_PREFIX}/${encodeURIComponent(queue)}`;
  }

  async #json(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await this.#send(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      'application/json',
    );
    const text = await response.text();
    return text === '' ? {} : (JSON.parse(text) as unknown);
  }

  /** Sends a request; a non-2xx answer becomes a RemoteError with the envelope's message. */
  async #send(method: string, path: string, body?: string, type?: string): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
    if (body !== undefined && type !== undefined) headers['content-type'] = type;
    let response: Response;
    try {
      response = await fetch(`${this.#base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        redirect: 'error',
      });
    } catch (error) {
      throw new Error(
        `could not reach ${this.#base}: ${error instanceof Error && error.cause ? String(error.cause) : String(error)}`,
      );
    }
    if (response.ok) return response;
    const text = await response.text();
    let reason = 'error';
    let message = `${response.status} ${response.statusText}`;
    try {
      const envelope = JSON.parse(text) as { error?: { message?: string; errors?: { reason?: string }[] } };
      if (typeof envelope.error?.message === 'string') message = `${envelope.error.message} (HTTP ${response.status})`;
      reason = envelope.error?.errors?.[0]?.reason ?? reason;
    } catch {
      // Not our envelope (a proxy's page): the status says enough.
    }
    throw new RemoteError(response.status, reason, message);
  }
}

/** A REST task as the CLI prints it. */
function record(task: TaskJson): TaskRecord {
  return {
    name: task.id,
    queue: task.queueName.slice(task.queueName.lastIndexOf('/') + 1),
    tag: task.tag ?? null,
    retryCount: task.retry_count,
    etaUsec: Number(task.leaseTimestamp),
    enqueuedUsec: Number(task.enqueueTimestamp),
    lastError: task.lastError ?? null,
    payloadBase64: Buffer.from(task.payloadBase64 ?? '', 'base64').toString('base64'),
  };
}
