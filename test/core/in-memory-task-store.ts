import type { NewAuditEntry } from '../../src/core/audit-log.js';
import type { ServiceConfig } from '../../src/core/queue-config.js';
import type { Task } from '../../src/core/task.js';
import type {
  QueueRef,
  QueueStats,
  ReleaseLeaseParams,
  ReleaseResult,
  SetPausedParams,
  TaskDeleteParams,
  TaskInsertParams,
  TaskListParams,
  TaskRef,
  TaskStore,
} from '../../src/core/task-store.js';

/**
 * A TaskStore in memory, for tests of the core's own rules (validation,
 * events, errors) without a database. It keeps tasks, tombstones and pause
 * flags, and records every call. Leasing, lease renewal, dead letters and
 * waiting are the database's work: those methods throw, so a core test that
 * reaches them is a test that belongs with the store tests on PostgreSQL.
 */
export class InMemoryTaskStore implements Partial<TaskStore> {
  readonly calls: string[] = [];
  /** The audit entries written, in order: those the action's own statement would write, and recordAudit's. */
  readonly audit: NewAuditEntry[] = [];
  readonly #tasks = new Map<string, Task>();
  readonly #tombstones = new Set<string>();
  readonly #paused = new Set<number>();
  #clock = 1_700_000_000_000_000;

  #key(ref: QueueRef, name: string): string {
    return `${ref.queueId}/${name}`;
  }

  async syncQueues(config: ServiceConfig): Promise<ReadonlyMap<string, number>> {
    this.calls.push('syncQueues');
    return new Map(config.queues.map((queue, i) => [queue.name, i + 1]));
  }

  async insertTasks(params: TaskInsertParams): Promise<Task[]> {
    this.calls.push('insertTasks');
    const stored = params.tasks.map((task) => {
      if (this.#tasks.has(this.#key(params, task.name))) throw new Error(`fake: "${task.name}" exists`);
      this.#clock += 1;
      return {
        name: task.name,
        queueName: params.queueName,
        payload: Buffer.from(task.payload),
        tag: task.tag,
        retryCount: 0,
        etaUsec: task.etaUsec ?? this.#clock + task.delayMs * 1000,
        enqueuedUsec: this.#clock,
      };
    });
    for (const task of stored) this.#tasks.set(this.#key(params, task.name), task);
    return stored;
  }

  async deleteTasks(params: TaskDeleteParams): Promise<string[]> {
    this.calls.push('deleteTasks');
    const deleted = params.names.filter((name) => {
      const key = this.#key(params, name);
      if (!this.#tasks.delete(key)) return false;
      // Names held by their form get no tombstone, as on PostgreSQL.
      if (!params.heldByForm.includes(name)) this.#tombstones.add(key);
      return true;
    });
    if (params.audit) this.audit.push({ ...params.audit, count: deleted.length });
    return deleted;
  }

  async getTask(params: TaskRef): Promise<Task | null> {
    this.calls.push('getTask');
    return this.#tasks.get(this.#key(params, params.name)) ?? null;
  }

  async isTombstoned(params: TaskRef): Promise<boolean> {
    this.calls.push('isTombstoned');
    return this.#tombstones.has(this.#key(params, params.name));
  }

  async listTasks(params: TaskListParams): Promise<Task[]> {
    this.calls.push('listTasks');
    const prefix = `${params.queueId}/`;
    return [...this.#tasks.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .map(([, task]) => task)
      .sort((a, b) => a.etaUsec - b.etaUsec || a.name.localeCompare(b.name))
      .slice(0, params.limit);
  }

  async queueStats(params: QueueRef): Promise<QueueStats> {
    this.calls.push('queueStats');
    const tasks = await this.listTasks({ ...params, limit: Number.MAX_SAFE_INTEGER });
    return {
      totalTasks: tasks.length,
      totalBytes: tasks.reduce((sum, task) => sum + task.payload.byteLength, 0),
      oldestEtaUsec: tasks[0]?.etaUsec ?? null,
      leasedLastMinute: 0,
      leasedLastHour: 0,
    };
  }

  async setPaused(params: SetPausedParams): Promise<void> {
    this.calls.push('setPaused');
    if (params.audit) this.audit.push({ ...params.audit, count: 0 });
    if (params.paused) this.#paused.add(params.queueId);
    else this.#paused.delete(params.queueId);
  }

  async isPaused(params: QueueRef): Promise<boolean> {
    this.calls.push('isPaused');
    return this.#paused.has(params.queueId);
  }

  async purgeTasks(params: QueueRef & { readonly batchSize: number }): Promise<number> {
    this.calls.push('purgeTasks');
    const names = (await this.listTasks({ ...params, limit: Number.MAX_SAFE_INTEGER })).map((task) => task.name);
    return (await this.deleteTasks({ ...params, names, heldByForm: [] })).length;
  }

  /** The fake leases nothing, so a live task is never leased: returned as it is. */
  async releaseLease(params: ReleaseLeaseParams): Promise<ReleaseResult | null> {
    this.calls.push('releaseLease');
    const task = this.#tasks.get(this.#key(params, params.name));
    if (task && params.audit) this.audit.push({ ...params.audit, count: 0 });
    return task ? { task, released: false } : null;
  }

  async recordAudit(entry: NewAuditEntry): Promise<void> {
    this.calls.push('recordAudit');
    this.audit.push(entry);
  }

  async ping(): Promise<void> {}
  async close(): Promise<void> {
    this.calls.push('close');
  }
}

/**
 * The fake as a TaskStore: any method it does not implement (leasing, lease
 * renewal, dead letters, waiting, and whatever the interface gains later)
 * throws when called.
 */
export function asTaskStore(fake: InMemoryTaskStore): TaskStore {
  return new Proxy(fake, {
    get(target, property, receiver) {
      if (property in target) {
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      // 'then' stays undefined: the store is not a promise.
      if (typeof property === 'string' && property !== 'then') return () => notInTheFake(property);
      return undefined;
    },
  }) as unknown as TaskStore;
}

function notInTheFake(method: string): never {
  throw new Error(`InMemoryTaskStore.${method}: leasing and its kin are tested against the database (test/store)`);
}
