import type { Context } from 'hono';
import { TASK_NAME_PATTERN } from '../core/task.js';
import { guardAction } from './action-guard.js';
import { noticeOf } from './console-actions.js';
import type { ConsoleContext } from './console-deps.js';
import { showError } from './console-errors.js';
import type { Viewer } from './console-viewer.js';
import { DeadLetterPage } from './dead-letter-page.js';
import { deadLetterFilterOf, filterFields, filterFormOf } from './dead-letter-filter.js';
import { DeadLettersPage } from './dead-letters-page.js';
import { MatchingConfirm } from './dead-letters-matching.js';
import { operatorOf, queueView, type QueueView } from './queue-routes.js';
import { renderPage } from './render-page.js';

const DEAD_LETTER_PAGE = 100;

/** The queue's view for a reader of its dead letters, or the refusal. */
async function readerView(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<QueueView | Response> {
  const view = await queueView(c, ctx, viewer);
  if (view instanceof Response) return view;
  if (await viewer.may(view.config, 'task.list')) return view;
  return showError(
    c,
    viewer,
    403,
    'Not for you',
    "Your access lets you see this queue's figures, not its dead letters.",
    view.base,
  );
}

/**
 * A queue's dead letters, newest death first (`?order=oldest` the other
 * way), a page at a time (`?after=<diedUsec>:<name>`), filtered by tag
 * prefix, error text and age; with the count of all that match, which a
 * bulk action on all of them is confirmed by.
 */
export async function deadLettersPage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const view = await readerView(c, ctx, viewer);
  if (view instanceof Response) return view;
  const { config, overview, pausedBy, base } = view;
  const nowMs = Date.now();
  const form = filterFormOf((name) => c.req.query(name));
  const filter = deadLetterFilterOf(form, nowMs);
  const afterMatch = /^(\d{1,17}):([a-zA-Z0-9_-]{1,500})$/.exec(c.req.query('after') ?? '');
  const desk = operatorOf(ctx, config.name, viewer).deadLetterDesk();
  const [page, matching] = await Promise.all([
    desk.list({
      ...filter,
      limit: DEAD_LETTER_PAGE + 1,
      newestFirst: !form.oldest,
      ...(afterMatch ? { after: { diedUsec: Number(afterMatch[1]), name: afterMatch[2] as string } } : {}),
    }),
    desk.count(filter),
  ]);
  const deadLetters = page.slice(0, DEAD_LETTER_PAGE);
  const last = deadLetters[deadLetters.length - 1];
  const next =
    page.length > DEAD_LETTER_PAGE && last
      ? `${base}/dead-letters?${new URLSearchParams({ ...filterFields(form), after: `${last.diedUsec}:${last.name}` }).toString()}`
      : null;
  const data = {
    overview,
    pausedBy,
    deadLetters,
    form,
    matching,
    next,
    notice: matchingNotice(c.req.query('done'), c.req.query('n'), c.req.query('of')),
    nowMs,
  };
  return renderPage(c, {
    title: `${config.name}: dead letters`,
    viewer,
    refreshSeconds: ctx.refreshSeconds,
    body: <DeadLettersPage viewer={viewer} data={data} />,
  });
}

/** The notice of an action, and when it did fewer than were confirmed, why. */
function matchingNotice(done: string | undefined, n: string | undefined, of: string | undefined): string | null {
  const notice = noticeOf(done, n);
  if (notice === null || of === undefined || of === n || !/^\d{1,9}$/.test(of)) return notice;
  return `${notice} ${of} matched when you confirmed: the others had been redriven, deleted or expired since.`;
}

/** One dead letter in full: payload, tag, attempts, last error, when and why it died; redrive or delete. */
export async function deadLetterPage(c: Context, ctx: ConsoleContext, viewer: Viewer): Promise<Response> {
  const view = await readerView(c, ctx, viewer);
  if (view instanceof Response) return view;
  const name = c.req.param('name') ?? '';
  const letter = TASK_NAME_PATTERN.test(name)
    ? await operatorOf(ctx, view.config.name, viewer).deadLetterDesk().get(name)
    : null;
  if (letter === null) {
    return showError(
      c,
      viewer,
      404,
      'No such dead letter',
      `There is no dead letter named "${name}" in ${view.config.name}: it was redriven, deleted or has expired.`,
      `${view.base}/dead-letters`,
    );
  }
  return renderPage(c, {
    title: `${view.config.name}: ${letter.name} (dead letter)`,
    viewer,
    body: (
      <DeadLetterPage
        viewer={viewer}
        overview={view.overview}
        pausedBy={view.pausedBy}
        letter={letter}
        nowMs={Date.now()}
      />
    ),
  });
}

/**
 * Redrive or delete every dead letter a filter matches: first a page that
 * says how many match, then, sent from it with that count, the action on
 * at most that many (letters that died since are left alone). The notice
 * says how many were done.
 */
export async function deadLettersMatching(c: Context, ctx: ConsoleContext): Promise<Response> {
  const guarded = await guardAction(c, ctx);
  if (guarded instanceof Response) return guarded;
  const { viewer, form: fields, config, back } = guarded;
  const list = `${back}/dead-letters`;
  const op = fields.op === 'redrive' || fields.op === 'forget' ? fields.op : null;
  if (op === null) return showError(c, viewer, 400, 'Nothing done', 'Choose redrive or delete.', list);
  const form = filterFormOf((name) => fields[name]);
  const filter = deadLetterFilterOf(form, Date.now());
  const desk = ctx.service
    .operate(config.name, { actor: viewer.email ?? 'anonymous', source: 'console' })
    .deadLetterDesk();
  if (fields.confirm === undefined) {
    const count = await desk.count(filter);
    return renderPage(c, {
      title: 'Confirm',
      viewer,
      body: <MatchingConfirm viewer={viewer} queue={config.name} op={op} form={form} count={count} />,
    });
  }
  const confirmed = Number(fields.confirm);
  if (!Number.isSafeInteger(confirmed) || confirmed < 1) {
    return showError(c, viewer, 400, 'Nothing done', 'The confirmation was not a count. Start again.', list);
  }
  const done =
    op === 'redrive' ? await desk.redriveMatching(filter, confirmed) : await desk.deleteMatching(filter, confirmed);
  const query = new URLSearchParams({ ...filterFields(form), done: op, n: String(done), of: String(confirmed) });
  return c.redirect(`${list}?${query.toString()}`, 303);
}
