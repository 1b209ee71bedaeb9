import type { Context } from 'hono';
import { ActionForm } from './action-form.js';
import { guardAction } from './action-guard.js';
import type { ConsoleContext } from './console-deps.js';
import { showError } from './console-errors.js';
import { formatCount, plural } from './format.js';
import { renderPage } from './render-page.js';

/**
 * "Run all matching now": every task the queue page's filter (state
 * delayed or leased, and a tag) finds that is not due yet, not only the
 * page shown. First a page of the server's own says how many match now
 * (counted, not guessed); sent from it with that count, the run itself,
 * through the core's operator API, which records one `run_now` entry
 * counting the tasks made due (tasks added or leased meanwhile may make
 * that count differ from the one confirmed; the notice says what was done).
 */
export async function runMatching(c: Context, ctx: ConsoleContext): Promise<Response> {
  const guarded = await guardAction(c, ctx);
  if (guarded instanceof Response) return guarded;
  const { viewer, form, config, back } = guarded;
  const state: 'leased' | 'delayed' | undefined =
    form.state === 'leased' ? 'leased' : form.state === 'delayed' ? 'delayed' : undefined;
  const tag = typeof form.tag === 'string' && form.tag !== '' ? form.tag : undefined;
  const filter = { ...(state === undefined ? {} : { state }), ...(tag === undefined ? {} : { tag }) };
  const operations = ctx.service.operate(config.name, { actor: viewer.email ?? 'anonymous', source: 'console' });
  const query = new URLSearchParams({ ...(state ? { state } : {}), ...(tag ? { tag } : {}) }).toString();
  const listed = query === '' ? back : `${back}?${query}`;
  if (form.confirm === undefined) {
    const { count } = await operations.runNow({ filter, dryRun: true });
    const what = `${plural(count, 'task')} of ${config.name}`;
    const described = [state ? `state ${state}` : 'not due yet', tag ? `tag ${tag}` : null].filter(Boolean).join(', ');
    return renderPage(c, {
      title: 'Confirm',
      viewer,
      body: (
        <section>
          <h1 id="run-matching-count">{`Run ${formatCount(count)} ${count === 1 ? 'task' : 'tasks'} now?`}</h1>
          <p>{`All ${what} matching: ${described}. Push tasks in flight are left to their delivery; leased pull tasks lose their lease.`}</p>
          {count > 0 && (
            <ActionForm viewer={viewer} action={`${back}/run-matching`} class="actions">
              {state && <input type="hidden" name="state" value={state} />}
              {tag && <input type="hidden" name="tag" value={tag} />}
              <input type="hidden" name="confirm" value={String(count)} />
              <button type="submit">{`Run ${formatCount(count)} now`}</button>
              <a href={listed}>Cancel</a>
            </ActionForm>
          )}
          {count === 0 && <a href={listed}>Back</a>}
        </section>
      ),
    });
  }
  if (typeof form.confirm !== 'string' || !/^\d+$/.test(form.confirm)) {
    return showError(c, viewer, 400, 'Nothing done', 'Confirm how many tasks to run.', listed);
  }
  const { count } = await operations.runNow({ filter });
  return c.redirect(`${back}?${query === '' ? '' : `${query}&`}done=run&n=${count}`, 303);
}
