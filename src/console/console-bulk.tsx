import type { Context } from 'hono';
import type { QueueOperations } from '../core/queue-operations.js';
import { TASK_NAME_PATTERN } from '../core/task.js';
import { guardAction } from './action-guard.js';
import { ActionForm } from './action-form.js';
import type { ConsoleContext } from './console-deps.js';
import { showError } from './console-errors.js';
import { plural } from './format.js';
import { renderPage } from './render-page.js';

/** What a selection of tasks or dead letters can have done to it. */
const BULK: Record<string, { readonly verb: string; readonly tab: string }> = {
  delete: { verb: 'Delete', tab: '' },
  release: { verb: 'Release the leases of', tab: '' },
  run: { verb: 'Run now', tab: '' },
  redrive: { verb: 'Put back in the queue', tab: '/dead-letters' },
  forget: { verb: 'Delete for good', tab: '/dead-letters' },
};
const MAX_SELECTED = 1000;

/**
 * An action on the tasks (or dead letters) ticked in a list: first a page
 * of the server's own that names them and says how many, then, sent from
 * it with that count, the action itself, refused when the count is not the
 * number of names sent. The core's operator API does it and writes one
 * audit entry counting what was done.
 */
export async function runBulk(c: Context, ctx: ConsoleContext): Promise<Response> {
  const guarded = await guardAction(c, ctx);
  if (guarded instanceof Response) return guarded;
  const { viewer, form, config, back } = guarded;
  const op = typeof form.op === 'string' ? form.op : '';
  const bulk = BULK[op];
  const names = [
    ...new Set([form.task ?? []].flat().filter((name): name is string => typeof name === 'string' && name !== '')),
  ];
  if (!bulk) return showError(c, viewer, 400, 'Nothing done', 'Choose what to do with the selected tasks.', back);
  if (names.length === 0)
    return showError(c, viewer, 400, 'Nothing done', 'Select at least one task.', `${back}${bulk.tab}`);
  if (names.length > MAX_SELECTED || names.some((name) => !TASK_NAME_PATTERN.test(name))) {
    return showError(
      c,
      viewer,
      400,
      'Nothing done',
      `Select at most ${MAX_SELECTED} tasks, by their names.`,
      `${back}${bulk.tab}`,
    );
  }
  const what = `${bulk.verb} ${plural(names.length, bulk.tab === '/dead-letters' ? 'dead letter' : 'task')} of ${config.name}`;
  if (form.confirm === undefined) {
    return renderPage(c, {
      title: 'Confirm',
      viewer,
      body: (
        <section>
          <h1>{`${what}?`}</h1>
          <ul class="selected" id="bulk-selected">
            {names.map((name) => (
              <li class="name">{name}</li>
            ))}
          </ul>
          <ActionForm viewer={viewer} action={`${back}/bulk`} class="actions">
            <input type="hidden" name="op" value={op} />
            <input type="hidden" name="confirm" value={String(names.length)} />
            {names.map((name) => (
              <input type="hidden" name="task" value={name} />
            ))}
            <button type="submit" class={op === 'delete' || op === 'forget' ? 'danger' : undefined}>
              {what}
            </button>
            <a href={`${back}${bulk.tab}`}>Cancel</a>
          </ActionForm>
        </section>
      ),
    });
  }
  if (form.confirm !== String(names.length)) {
    return showError(
      c,
      viewer,
      409,
      'Nothing done',
      `You confirmed ${String(form.confirm)} but ${names.length} were sent. Select them again.`,
      `${back}${bulk.tab}`,
    );
  }
  const operations = ctx.service.operate(config.name, { actor: viewer.email ?? 'anonymous', source: 'console' });
  const count = await perform(operations, op, names);
  // `of`: how many were selected, so the notice says how many were not done, and why.
  return c.redirect(`${back}${bulk.tab}?done=${op}&n=${count}&of=${names.length}`, 303);
}

/** The action, and how many tasks it touched: only those released, deleted or put back count. */
async function perform(operations: QueueOperations, op: string, names: readonly string[]): Promise<number> {
  if (op === 'redrive') return operations.redrive(names);
  if (op === 'forget') return operations.deleteDeadLetters(names);
  if (op === 'run') return (await operations.runNow({ names })).count;
  const done = op === 'delete' ? await operations.deleteTasks(names) : await operations.releaseLeases(names);
  return done.filter(Boolean).length;
}
