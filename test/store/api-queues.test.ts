import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Operator } from '../../src/core/audit-log.js';
import { isQueueError } from '../../src/core/errors.js';
import type { QueueConfig } from '../../src/core/queue-config.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';
import { pushQueue, startSink, type Sink } from '../helpers/push-sink.js';

/**
 * Queues made through the Cloud Tasks API (sql/0021, core/api-queues.ts):
 * kept in the database beside the file's, audited, seen by every process
 * within its check interval and dispatched there; a deploy of the file
 * leaves them alone and refuses a name in both.
 */
const CLOUD_TASKS: Operator = { actor: 'alice@example.com', source: 'cloudtasks' };
const FILE_CONFIG = serviceConfig([pullQueue('file-pull')]);

/** A push queue as the Cloud Tasks mapping makes one: no target URL of its own (TASKQUEUE_PUSH_BASE_URL). */
function apiQueue(name: string, push: Partial<NonNullable<QueueConfig['push']>> = {}): QueueConfig {
  const queue = pushQueue(name, '', { ratePerSecond: 50, bucketSize: 50, ...push });
  return { ...queue, push: { ...queue.push!, targetUrl: null } };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isQueueError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'resolved';
}

describe.each(ENGINES)('queues made through the API (%s)', (engine) => {
  let t: TestService | undefined;
  let sink: Sink | undefined;
  afterEach(async () => {
    await t?.close();
    await sink?.close();
    t = undefined;
    sink = undefined;
  });

  const open = async () => {
    t = await openTestService(engine, FILE_CONFIG, {
      open: { ownQueues: true, dispatch: false, pushBaseUrl: 'http://127.0.0.1:9', apiQueuesCheckMs: 0 },
    });
    return t;
  };

  it('creates, updates and deletes an API-made queue, each change audited; the name is held after a delete', async () => {
    const { service, sql, schema } = await open();
    const made = await service.createQueue(apiQueue('api-one'), CLOUD_TASKS);
    expect(made.origin).toBe('api');
    expect(service.queueSource('api-one')).toBe('api');
    expect(service.queueSource('file-pull')).toBe('file');
    expect(service.queues().map((q) => q.name)).toEqual(['default', 'file-pull', 'api-one']);
    await service.getQueue('api-one').add({ name: 'first', payload: 'x' });

    expect(await codeOf(service.createQueue(apiQueue('api-one'), CLOUD_TASKS))).toBe(
      'QUEUE_ALREADY_EXISTS: Queue already exists',
    );
    expect(await codeOf(service.createQueue(apiQueue('file-pull'), CLOUD_TASKS))).toMatch(/^QUEUE_ALREADY_EXISTS/);
    expect(await codeOf(service.updateQueue(apiQueue('file-pull'), CLOUD_TASKS))).toMatch(
      /^QUEUE_OWNED_ELSEWHERE: Queue "file-pull" is defined in queue.xml\/queue.yaml: the file owns it/,
    );
    expect(await codeOf(service.deleteQueue('file-pull', CLOUD_TASKS))).toMatch(/^QUEUE_OWNED_ELSEWHERE/);
    expect(await codeOf(service.updateQueue(apiQueue('nowhere'), CLOUD_TASKS))).toMatch(/^UNKNOWN_QUEUE/);

    await service.updateQueue(apiQueue('api-one', { ratePerSecond: 7, bucketSize: 7 }), CLOUD_TASKS);
    expect(service.getQueue('api-one').config.push?.ratePerSecond).toBe(7);
    expect(await service.getQueue('api-one').getTask('first')).not.toBeNull();

    await service.deleteQueue('api-one', CLOUD_TASKS);
    expect(await codeOf(Promise.resolve().then(() => service.getQueue('api-one')))).toMatch(/^UNKNOWN_QUEUE/);
    const left = await sql<{ n: string }>(`select count(*) as n from ${schema}.tasks`);
    expect(Number(left[0]!.n)).toBe(0);
    expect(await codeOf(service.createQueue(apiQueue('api-one'), CLOUD_TASKS))).toBe(
      'QUEUE_NAME_HELD: The queue cannot be created because a queue with this name existed too recently.',
    );
    // Past the hold (the tombstone retention), the name can be used again.
    await sql(`update ${schema}.queues set deleted_at = now() - interval '8 days' where name = 'api-one'`);
    await service.createQueue(apiQueue('api-one'), CLOUD_TASKS);
    expect(service.queueSource('api-one')).toBe('api');

    const audit = await service.auditLog.list({ limit: 20, source: 'cloudtasks' });
    expect(audit.map((e) => [e.action, e.queue, e.actor, e.count]).reverse()).toEqual([
      ['create_queue', 'api-one', 'alice@example.com', 0],
      ['update_queue', 'api-one', 'alice@example.com', 0],
      ['delete_queue', 'api-one', 'alice@example.com', 0],
      ['purge', 'api-one', 'alice@example.com', 1],
      ['create_queue', 'api-one', 'alice@example.com', 0],
    ]);
  });

  it('pause, resume and purge go through operate() on an API-made queue as on a file queue', async () => {
    const { service } = await open();
    await service.createQueue(apiQueue('api-ops'), CLOUD_TASKS);
    const ops = service.operate('api-ops', CLOUD_TASKS);
    await ops.pause();
    expect(await ops.isPaused()).toBe(true);
    await ops.resume();
    await service.getQueue('api-ops').add({ payload: 'x' });
    expect(await ops.purge()).toBe(1);
    const audit = await service.auditLog.list({ limit: 10, queue: 'api-ops' });
    expect(audit.map((e) => e.action).reverse()).toEqual(['create_queue', 'pause', 'resume', 'purge']);
  });

  it('another process serves an API-made queue within its check interval, and after a restart', async () => {
    const { service, openAnother } = await open();
    const other = await openAnother(undefined, { apiQueuesCheckMs: 100, dispatch: false });
    await service.createQueue(apiQueue('api-seen'), CLOUD_TASKS);
    await vi.waitFor(() => expect(other.queueSource('api-seen')).toBe('api'), { timeout: 5000, interval: 20 });
    await service.deleteQueue('api-seen', CLOUD_TASKS);
    await vi.waitFor(() => expect(() => other.getQueue('api-seen')).toThrow(/not defined/), {
      timeout: 5000,
      interval: 20,
    });
    await service.createQueue(apiQueue('api-kept'), CLOUD_TASKS);
    // A process opened later (a restart) serves it from the start.
    const later = await openAnother(undefined, { apiQueuesCheckMs: 0, dispatch: false });
    expect(later.queueSource('api-kept')).toBe('api');
  });

  it('a deploy of the file leaves API-made queues alone and refuses a name in both, naming it', async () => {
    const { service, openAnother } = await open();
    await service.createQueue(apiQueue('api-kept'), CLOUD_TASKS);
    const deploy = serviceConfig([pullQueue('file-pull'), pullQueue('file-new')], { source: '/srv/queue.xml' });
    const owner = await openAnother(deploy, { ownQueues: true, dispatch: false, apiQueuesCheckMs: 0 });
    expect(owner.queueSource('api-kept')).toBe('api');
    expect(owner.queueSource('file-new')).toBe('file');
    const clash = serviceConfig([pullQueue('api-kept')], { source: '/srv/queue2.xml' });
    await expect(openAnother(clash, { ownQueues: true, dispatch: false })).rejects.toThrow(
      /queue "api-kept" is defined in the configuration and made through the Cloud Tasks API/,
    );
    await service.reloadApiQueues();
    expect(service.queueSource('api-kept')).toBe('api');
  });

  it('a push queue made on one process is dispatched by another', async () => {
    sink = await startSink();
    const { service, openAnother } = await open();
    await openAnother(undefined, { apiQueuesCheckMs: 100, dispatch: true, pushBaseUrl: sink.url });
    await service.createQueue(apiQueue('api-push'), CLOUD_TASKS);
    await service.getQueue('api-push').add({ name: 'delivered', payload: 'hello', url: '/work' });
    await sink.waitFor(1, 10_000);
    expect(sink.requests[0]!.url).toBe('/work');
    expect(sink.requests[0]!.body.toString()).toBe('hello');
  });
});
