import type { TaskOptions } from '../core/task.js';
import type { AuditAction, AuditLog } from '../core/audit-log.js';
import { deadLetterRecord } from '../core/dead-letter.js';
import type { QueueOverview } from '../core/queue-overview.js';
import { isQueueError, QueueError } from '../core/errors.js';
import type { Task } from '../core/task.js';
import { importedTask, toExportLine } from '../core/task-export.js';
import { TaskQueueService } from '../core/task-queue-service.js';
import { PgAuditLog } from '../store/audit-log.js';
import { configuredQueues } from '../store/configured-queues.js';
import { openDatabase, type DatabaseOptions } from '../store/database.js';
import { latestMigration, migrate, schemaVersion } from '../store/migrate.js';
import { translateError } from '../store/translate-error.js';
import { PgTaskStore } from '../store/pg-task-store.js';
import { validateSchemaName } from '../store/schema-name.js';
import type { DeadLetterRecord, ExportLine, LeaseRequest, NewTaskRecord, OperatorClient, TaskRecord } from './operator-client.js';

/** Tasks per page of an export: at most 100 MB of payloads in memory at once. */
const EXPORT_PAGE = 100;
const DEAD_LETTER_PAGE = 500;

/** A task as the CLI prints it. */
export function taskRecord(task: Task): TaskRecord {
  return {
    name: task.name,
    queue: task.queueName,
    tag: task.tag,
    retryCount: task.retryCount,
    etaUsec: task.etaUsec,
    enqueuedUsec: task.enqueuedUsec,
    payloadBase64: task.payload.toString('base64'),
  };
}

/**
 * The operator commands straight on the database, through the same core as
 * the servers (TaskQueueService). The queues are those the servers wrote to
 * the database (configuredQueues), so the CLI needs no queue.xml and never
 * changes the configuration.
 */
export class DatabaseClient implements OperatorClient {
  readonly target: string;
  readonly #service: TaskQueueService;
  readonly #audit: AuditLog;
  readonly #actor: string;

  private constructor(service: TaskQueueService, audit: AuditLog, actor: string, target: string) {
    this.#service = service;
    this.#audit = audit;
    this.#actor = actor;
    this.target = target;
  }

  /**
   * Opens the database, applies pending migrations (to a schema the servers
   * created; never a new one), reads the configured
   * queues. `actor` is who the audit log names for this run's operator
   * actions (the CLI has no verified identity: `cli:` and the login name).
   */
  static async open(options: DatabaseOptions, schemaName: string, actor = 'cli'): Promise<DatabaseClient> {
    const schema = validateSchemaName(schemaName);
    const database = await openDatabase(options);
    const store = new PgTaskStore(database, schema);
    try {
      // An operator command never creates a schema (a mistyped --schema must not leave one behind);
      // one the servers made is brought up to date, as they would at start.
      const version = await schemaVersion(database.db, schema).catch((error: unknown) => {
        if ((error as { code?: unknown }).code !== '42P01') throw translateError(error, {});
        throw new QueueError(
          'INVALID_CONFIG',
          `schema "${schema}" of ${database.engine === 'pglite' ? 'the embedded database' : 'the database'} holds no taskqueue tables; ` +
            'start the server once (it writes the queues there) or check --schema / TASKQUEUE_SCHEMA',
        );
      });
      if (version < (await latestMigration())) await migrate(database.db, schema);
      const { config, ids } = await configuredQueues({ db: database.db, schema });
      const service = new TaskQueueService(store, config, ids, { cleanupIntervalMs: 0 });
      return new DatabaseClient(service, new PgAuditLog({ db: database.db, schema }), actor, database.engine === 'pglite' ? 'the embedded database' : 'PostgreSQL');
    } catch (error) {
      await store.close().catch(() => {});
      throw error;
    }
  }

  queues(): Promise<QueueOverview[]> {
    return this.#service.overview();
  }

  async stats(queue: string): Promise<QueueOverview> {
    this.#service.getQueue(queue); // UNKNOWN_QUEUE for a queue the database does not define
    const [row] = await this.#service.overview([queue]);
    if (!row) throw new QueueError('UNKNOWN_QUEUE', `queue "${queue}" is not defined in the database`, { queue });
    return row;
  }

  async add(queue: string, task: NewTaskRecord): Promise<TaskRecord> {
    const { method, ...rest } = task;
    return taskRecord(await this.#service.getQueue(queue).add({ ...rest, ...(method === undefined ? {} : { method: method as TaskOptions['method'] }) }));
  }

  async lease(queue: string, request: LeaseRequest): Promise<TaskRecord[]> {
    try {
      const tasks = await this.#service.getQueue(queue).leaseTasks({
        lease: request.leaseSecs,
        unit: 'seconds',
        maxTasks: request.numTasks,
        ...(request.tag === undefined ? {} : { tag: request.tag }),
      });
      return tasks.map(taskRecord);
    } catch (error) {
      // As over REST: a paused queue leases nothing.
      if (isQueueError(error, 'QUEUE_PAUSED')) return [];
      throw error;
    }
  }

  delete(queue: string, names: readonly string[]): Promise<boolean[]> {
    return this.#service.getQueue(queue).deleteTask(names);
  }

  async purge(queue: string): Promise<number> {
    const purged = await this.#service.getQueue(queue).purge();
    await this.#record('purge', queue, purged);
    return purged;
  }

  async setPaused(queue: string, paused: boolean): Promise<void> {
    const handle = this.#service.getQueue(queue);
    await (paused ? handle.pause() : handle.resume());
    await this.#record(paused ? 'pause' : 'resume', queue, 0);
  }

  async *deadLetters(queue: string): AsyncIterable<DeadLetterRecord[]> {
    const handle = this.#service.getQueue(queue);
    let after: { name: string; diedUsec: number } | undefined;
    for (;;) {
      const page = await handle.listDeadLetters({ limit: DEAD_LETTER_PAGE, ...(after ? { after } : {}) });
      if (page.length > 0) {
        yield page.map(deadLetterRecord);
      }
      const last = page[page.length - 1];
      if (page.length < DEAD_LETTER_PAGE || !last) return;
      after = { name: last.name, diedUsec: last.diedUsec };
    }
  }

  async redrive(queue: string, names?: readonly string[]): Promise<number> {
    const redriven = await this.#service.getQueue(queue).redrive(names);
    await this.#record('redrive', queue, redriven);
    return redriven;
  }

  async *exportTasks(queue: string): AsyncIterable<ExportLine[]> {
    const handle = this.#service.getQueue(queue);
    let after: Task | undefined;
    for (;;) {
      const page = await handle.browseTasks({ limit: EXPORT_PAGE, ...(after ? { after } : {}) });
      if (page.length > 0) yield page.map(toExportLine);
      after = page[page.length - 1];
      if (page.length < EXPORT_PAGE || !after) return;
    }
  }

  async importTasks(queue: string, lines: readonly ExportLine[]): Promise<number> {
    const added = await this.#service.getQueue(queue).add(lines.map(importedTask), { restore: true });
    return added.length;
  }

  close(): Promise<void> {
    return this.#service.close();
  }

  /** The audit log entry of an operator action, as the console and the operator routes write one. */
  async #record(action: AuditAction, queue: string, count: number): Promise<void> {
    await this.#audit.record({ actor: this.#actor, action, queue, count, source: 'cli' });
  }
}
