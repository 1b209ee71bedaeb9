// One refresh cadence per page: every tick asks for the page again with the
// ETag of the last answer (a 304, no body, when nothing changed), swaps in
// those of its live parts (elements marked data-live, by id) whose server
// HTML changed, and then redraws the charts, so figures and charts always
// come from the same moment. A swap keeps what the viewer was doing: the
// focused control (found again by its id, or its name and value, or its
// sort key, or its link), ticked boxes, and the scroll position. The bar
// under the header says how fresh the figures are (not a live region: it
// changes every second); #announce, a polite live region, says only what
// matters, once: figures late or stale, back to fresh, a changed summary.
// When a refresh fails the banner says why (session ended, server
// unreachable). The rate (or a pause) is the viewer's choice.
import { renderAges, renderTimes } from './times.js';
import { restoreTables } from './tables.js';

const RATE_KEY = 'taskqueue-console-refresh';
type Refresher = () => Promise<void>;
const extra: Refresher[] = [];
/** The server's HTML of each live part as last swapped in: unchanged parts are left alone. */
const served = new Map<string, string>();

/**
 * Notes the live parts as the server sent them, before any script touches
 * them (times written in the zone, tables sorted): the first refresh that
 * finds them unchanged leaves them alone too.
 */
export function rememberServed(): void {
  document
    .querySelectorAll<HTMLElement>('[data-live][id]')
    .forEach((part) => served.set(part.id, withoutClockText(part.outerHTML)));
}

/**
 * A live part's HTML without what the script writes itself from data-at and
 * data-since (times in the chosen zone, growing ages): a part whose only
 * change is the server's wording of the clock is left alone.
 */
function withoutClockText(html: string): string {
  return html
    .replace(/<time[^>]*? data-at="(-?\d+)"[^>]*>[^<]*<\/time>/g, '<time $1>')
    .replace(/<span class="age" data-since="(-?\d+)">[^<]*<\/span>/g, '<age $1>');
}

/** Adds work done on every tick (the charts). */
export function onRefresh(refresher: Refresher): void {
  extra.push(refresher);
}

/** What identifies a control across a swap, when it has no id. */
function keyOf(element: Element): string | null {
  if (element.id) return `#${element.id}`;
  const name = element.getAttribute('name');
  if (name !== null) return `[name="${CSS.escape(name)}"][value="${CSS.escape(element.getAttribute('value') ?? '')}"]`;
  const sort = element.getAttribute('data-sort-by');
  if (sort !== null) return `[data-sort-by="${CSS.escape(sort)}"]`;
  const href = element.getAttribute('href');
  if (href !== null) return `a[href="${CSS.escape(href)}"]`;
  return null;
}

/** The selector of a focused element inside `region`: its key, within its row's key when it has one. */
function focusSelector(region: Element): string | null {
  const active = document.activeElement;
  if (!active || active === document.body || !region.contains(active)) return null;
  const key = keyOf(active);
  if (key === null || key.startsWith('#')) return key;
  const row = active.closest('[data-task], [data-queue], [data-dead-letter]');
  if (!row) return key;
  const attribute = ['data-task', 'data-queue', 'data-dead-letter'].find((a) => row.hasAttribute(a))!;
  return `[${attribute}="${CSS.escape(row.getAttribute(attribute)!)}"] ${key}`;
}

export function startLive(): void {
  const main = document.querySelector<HTMLElement>('main[data-refresh-ms]');
  const freshness = document.getElementById('freshness');
  const banner = document.getElementById('banner');
  const announce = document.getElementById('announce');
  const select = document.getElementById('refresh-rate');
  if (!main || !freshness || !banner) return;
  let updatedAt = Number(freshness.dataset.renderedAt) || Date.now();
  // The server's clock wrote renderedAt; count from when this page arrived instead.
  updatedAt = Math.min(updatedAt, Date.now());
  let everyMs = Number(main.dataset.refreshMs) || 5000;
  let timer: number | undefined;
  let problem: string | null = null;
  let etag: string | null = null;
  let lastState = 'fresh';

  function say(message: string): void {
    if (announce) announce.textContent = message;
  }

  if (select instanceof HTMLSelectElement) {
    select.closest('label')?.removeAttribute('hidden');
    try {
      const saved = localStorage.getItem(RATE_KEY);
      if (saved !== null && [...select.options].some((o) => o.value === saved)) select.value = saved;
    } catch {
      // No storage: the server's default rate.
    }
    everyMs = Number(select.value) * 1000;
    select.addEventListener('change', () => {
      everyMs = Number(select.value) * 1000;
      try {
        localStorage.setItem(RATE_KEY, select.value);
      } catch {
        // The choice lasts for this page.
      }
      schedule();
      if (everyMs > 0) void tick();
      showFreshness();
    });
  }

  function showFreshness(): void {
    const age = Math.max(0, Math.round((Date.now() - updatedAt) / 1000));
    const paused = everyMs === 0;
    freshness!.textContent = `updated ${age < 2 ? 'just now' : `${age} s ago`}${paused ? ' (refresh paused)' : ''}`;
    const late = !paused && Date.now() - updatedAt > 2 * everyMs + 2000;
    const stale = problem !== null || (!paused && Date.now() - updatedAt > 6 * everyMs + 5000);
    const state = stale ? 'stale' : late ? 'late' : paused ? 'paused' : 'fresh';
    freshness!.className = state;
    if (state !== lastState) {
      // Said once, when it changes: a screen reader hears the news, not the clock.
      if (state === 'stale') say('The figures are stale.');
      else if (state === 'late') say('The figures are late.');
      else if (state === 'fresh' && (lastState === 'stale' || lastState === 'late')) say('The figures are up to date.');
      lastState = state;
    }
  }

  function showProblem(message: string | null, link?: { href: string; text: string }): void {
    problem = message;
    banner!.hidden = message === null;
    banner!.textContent = message ?? '';
    if (message !== null && link) {
      const a = document.createElement('a');
      a.href = link.href;
      a.textContent = link.text;
      banner!.append(' ', a);
    }
    showFreshness();
  }

  /** Swaps in the live parts whose server HTML changed, keeping focus, ticks and scroll. */
  function swap(fresh: Document): void {
    const x = window.scrollX;
    const y = window.scrollY;
    document.querySelectorAll<HTMLElement>('[data-live][id]').forEach((old) => {
      const replacement = fresh.getElementById(old.id);
      if (!replacement) return;
      const html = withoutClockText(replacement.outerHTML);
      if (served.get(old.id) === html) return;
      served.set(old.id, html);
      const focus = focusSelector(old);
      const ticked = [...old.querySelectorAll<HTMLInputElement>('input[type=checkbox]:checked')]
        .map((box) => keyOf(box))
        .filter((key): key is string => key !== null);
      const announced = old.querySelector('[data-announce]')?.textContent ?? null;
      const node = document.importNode(replacement, true);
      old.replaceWith(node);
      for (const key of ticked) {
        const box = node.querySelector<HTMLInputElement>(key);
        if (box) box.checked = true;
      }
      if (focus !== null) node.querySelector<HTMLElement>(focus)?.focus({ preventScroll: true });
      const now = node.querySelector('[data-announce]')?.textContent ?? null;
      if (now !== null && now !== announced) say(now);
    });
    restoreTables();
    renderTimes();
    renderAges();
    if (window.scrollX !== x || window.scrollY !== y) window.scrollTo(x, y);
  }

  async function tick(): Promise<void> {
    if (document.hidden || everyMs === 0) return;
    let response: Response;
    try {
      const headers: Record<string, string> = { accept: 'text/html' };
      if (etag !== null) headers['if-none-match'] = etag;
      response = await fetch(location.href, { credentials: 'same-origin', cache: 'no-store', headers });
    } catch {
      showProblem(`Cannot reach the server: the figures below stopped ${formatSince(updatedAt)}. Still trying.`);
      return;
    }
    if (response.redirected && new URL(response.url).pathname === '/console/sign-in') {
      // Nothing more will come: stop asking, say so, offer the way back.
      window.clearInterval(timer);
      timer = undefined;
      showProblem(`Session ended: the figures below stopped ${formatSince(updatedAt)}.`, {
        href: response.url,
        text: 'Sign in again',
      });
      return;
    }
    if (response.status !== 304) {
      if (!response.ok) {
        showProblem(
          `The server answered ${response.status}: the figures below stopped ${formatSince(updatedAt)}. Still trying.`,
        );
        return;
      }
      etag = response.headers.get('etag');
      // The server escaped every value it put in the page; scripts in a parsed document never run.
      swap(new DOMParser().parseFromString(await response.text(), 'text/html'));
    }
    await Promise.all(extra.map((refresh) => refresh().catch(() => undefined)));
    updatedAt = Date.now();
    showProblem(null);
  }

  function schedule(): void {
    window.clearInterval(timer);
    timer = everyMs > 0 ? window.setInterval(() => void tick(), everyMs) : undefined;
  }

  schedule();
  window.setInterval(() => {
    showFreshness();
    endLapsedLeases();
  }, 1000);
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && everyMs > 0 && timer !== undefined) void tick();
  });
  showFreshness();
}

/**
 * A lease ends between two refreshes: its row's Release goes at that moment
 * (the server would only say the task is not leased), and its state says
 * the lease ran out until the next refresh brings the row as it is.
 */
function endLapsedLeases(): void {
  const now = Date.now();
  document.querySelectorAll<HTMLElement>('[data-lease-ends]').forEach((element) => {
    if (Number(element.dataset.leaseEnds) > now) return;
    element.removeAttribute('data-lease-ends');
    element.hidden = true;
    const row = element.closest('tr');
    const badge = row?.querySelector('.badge.state-leased');
    if (row && badge) {
      row.dataset.state = 'available';
      badge.className = 'badge state-available';
      badge.textContent = 'lease ran out';
    }
  });
}

function formatSince(at: number): string {
  const s = Math.round((Date.now() - at) / 1000);
  return s < 2 ? 'just now' : `${s} s ago`;
}
