// Times on the page: one zone for everything (tables, hovers, chart axes),
// UTC or the browser's, chosen in the header and remembered.
import { formatAbsolute, formatAge, formatRelative } from '../relative-time.js';

export type Zone = 'UTC' | 'local';
const KEY = 'taskqueue-console-zone';
const listeners: Array<() => void> = [];

export function currentZone(): Zone {
  try {
    return localStorage.getItem(KEY) === 'local' ? 'local' : 'UTC';
  } catch {
    return 'UTC';
  }
}

/** Calls `listener` whenever the zone changes. */
export function onZoneChange(listener: () => void): void {
  listeners.push(listener);
}

/** Writes every <time data-at> in `root` in the current zone, relative ones counted from now. */
export function renderTimes(root: ParentNode = document): void {
  const zone = currentZone();
  const now = Date.now();
  root.querySelectorAll<HTMLTimeElement>('time[data-at]').forEach((time) => {
    const at = Number(time.dataset.at);
    const absolute = formatAbsolute(at, zone);
    const relative = formatRelative(at - now);
    if (time.dataset.show === 'absolute') {
      time.textContent = absolute;
      time.title = relative;
    } else {
      time.textContent = relative;
      time.title = absolute;
    }
  });
}

/** Writes every age (`.age[data-since]`, "5m 3s") in `root` as of now: ages grow between refreshes. */
export function renderAges(root: ParentNode = document): void {
  const now = Date.now();
  root.querySelectorAll<HTMLElement>('.age[data-since]').forEach((age) => {
    age.textContent = formatAge((now - Number(age.dataset.since)) / 1000);
  });
}

export function startTimes(): void {
  const select = document.getElementById('time-zone');
  if (select instanceof HTMLSelectElement) {
    select.value = currentZone();
    select.addEventListener('change', () => {
      try {
        localStorage.setItem(KEY, select.value === 'local' ? 'local' : 'UTC');
      } catch {
        // Storage refused (private mode): the choice lasts for this page.
      }
      renderTimes();
      listeners.forEach((listener) => listener());
    });
  }
  renderTimes();
  renderAges();
  setInterval(() => renderTimes(), 15000);
  setInterval(() => renderAges(), 1000);
}
