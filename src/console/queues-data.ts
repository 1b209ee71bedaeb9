import type { Context } from 'hono';
import type { ConsoleContext } from './console-deps.js';
import type { Viewer } from './console-viewer.js';
import { triage, type TriagedQueue } from './queue-triage.js';
import { readableQueues } from './readable.js';

/** What the queues page shows: the viewer's queues whose name contains `?q=`, ranked. */
export interface QueuesData {
  readonly filter: string;
  readonly queues: readonly TriagedQueue[];
}

/**
 * The queues the viewer may read, filtered by `?q=` (any case), ranked by
 * the triage: the overview, the failures it does not show (one bounded
 * query) and each queue's depth a window ago (the depth samples) are read
 * side by side.
 */
export async function queuesData(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<QueuesData> {
  const filter = (c.req.query('q') ?? '').trim();
  const needle = filter.toLowerCase();
  const names = (await readableQueues(viewer, ctx.service.queues()))
    .map((queue) => queue.name)
    .filter((name) => needle === '' || name.toLowerCase().includes(needle));
  const t = ctx.triage;
  const [overview, attention, before] = await Promise.all([
    ctx.service.overview(names),
    names.length === 0 ? [] : ctx.service.attention(names, { deadLetterSeconds: t.deadLetterSeconds }),
    ctx.sampler.availableAgo(t.backlogWindowSeconds).catch(() => new Map<string, number>()),
  ]);
  const byName = new Map(attention.map((a) => [a.name, a]));
  return {
    filter,
    queues: triage(
      overview,
      (name) => {
        const a = byName.get(name);
        const then = before.get(name);
        return { ...(a ? { attention: a } : {}), ...(then === undefined ? {} : { availableBefore: then }) };
      },
      t,
    ),
  };
}
