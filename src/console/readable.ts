import type { Context } from 'hono';
import type { QueueConfig } from '../core/queue-config.js';
import type { ConsoleContext } from './console-deps.js';
import type { Viewer } from './console-viewer.js';

/** The queues this viewer may read (REST's `queue.get`), in configuration order. */
export async function readableQueues(viewer: Viewer, queues: readonly QueueConfig[]): Promise<QueueConfig[]> {
  const allowed = await Promise.all(queues.map((queue) => viewer.may(queue, 'queue.get')));
  return queues.filter((_, i) => allowed[i]);
}

/** The queue a path names, when the viewer may read it; null otherwise (the same answer either way). */
export async function readableQueue(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<QueueConfig | null> {
  const name = c.req.param('queue') ?? '';
  const config = ctx.service.queues().find((queue) => queue.name === name);
  return config && (await viewer.may(config, 'queue.get')) ? config : null;
}
