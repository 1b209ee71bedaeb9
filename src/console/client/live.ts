// One refresh cadence per page: every tick fetches the page again and swaps
// in its live parts (elements marked data-live, by id) and then redraws the
// charts, so figures and charts always come from the same moment. The bar
// under the header says how fresh the figures are; when a refresh fails
// the banner says why (session ended, server unreachable) and the freshness
// turns amber, then red. The rate (or a pause) is the viewer's choice.
import { renderTimes } from './times.js';
import { restoreTables } from './tables.js';

const RATE_KEY = 'taskqueue-console-refresh';
type Refresher = () => Promise<void>;
const extra: Refresher[] = [];

/** Adds work done on every tick (the charts). */
export function onRefresh(refresher: Refresher): void {
  extra.push(refresher);
}

export function startLive(): void {
  const main = document.querySelector<HTMLElement>('main[data-refresh-ms]');
  const freshness = document.getElementById('freshness');
  const banner = document.getElementById('banner');
  const select = document.getElementById('refresh-rate');
  if (!main || !freshness || !banner) return;
  let updatedAt = Number(freshness.dataset.renderedAt) || Date.now();
  // The server's clock wrote renderedAt; count from when this page arrived instead.
  updatedAt = Math.min(updatedAt, Date.now());
  let everyMs = Number(main.dataset.refreshMs) || 5000;
  let timer: number | undefined;
  let problem: string | null = null;

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
    freshness!.className = stale ? 'stale' : late ? 'late' : paused ? 'paused' : 'fresh';
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

  async function tick(): Promise<void> {
    if (document.hidden || everyMs === 0) return;
    let response: Response;
    try {
      response = await fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } });
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
    if (!response.ok) {
      showProblem(
        `The server answered ${response.status}: the figures below stopped ${formatSince(updatedAt)}. Still trying.`,
      );
      return;
    }
    // The server escaped every value it put in the page; scripts in a parsed document never run.
    const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
    document.querySelectorAll<HTMLElement>('[data-live][id]').forEach((old) => {
      const replacement = fresh.getElementById(old.id);
      if (replacement) old.replaceWith(document.importNode(replacement, true));
    });
    restoreTables();
    renderTimes();
    await Promise.all(extra.map((refresh) => refresh().catch(() => undefined)));
    updatedAt = Date.now();
    showProblem(null);
  }

  function schedule(): void {
    window.clearInterval(timer);
    timer = everyMs > 0 ? window.setInterval(() => void tick(), everyMs) : undefined;
  }

  schedule();
  window.setInterval(showFreshness, 1000);
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && everyMs > 0 && timer !== undefined) void tick();
  });
  showFreshness();
}

function formatSince(at: number): string {
  const s = Math.round((Date.now() - at) / 1000);
  return s < 2 ? 'just now' : `${s} s ago`;
}
