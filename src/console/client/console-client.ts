// The console's only script, served from /console/assets/console.js (the
// Content-Security-Policy allows no inline script). Progressive: every page
// works without it; it refreshes the queues table, draws the charts, and
// arms the purge button once the queue's name is typed.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './console.css';

const REFRESH_MS = 5000;
const CHART_REFRESH_MS = 10000;

/** What /console/queues/:queue/series.json answers. */
interface QueueSeries {
  depth: { at: number[]; available: number[]; leased: number[]; delayed: number[] };
  leases: { at: number[]; tasks: number[] };
}

/** Replaces an element with the server's fresh rendering of it, every few seconds. */
function refreshing(element: HTMLElement): void {
  const url = element.dataset.refresh;
  if (!url) return;
  const every = Number(element.dataset.refreshMs) || REFRESH_MS;
  let current = element;
  setInterval(async () => {
    if (document.hidden) return;
    try {
      const response = await fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (!response.ok) return;
      // The server escaped every value it put in this fragment.
      const template = document.createElement('template');
      template.innerHTML = (await response.text()).trim();
      const fresh = template.content.firstElementChild;
      if (fresh instanceof HTMLElement && fresh.id === current.id) {
        current.replaceWith(fresh);
        current = fresh;
      }
    } catch {
      // Offline for a moment: keep the figures shown.
    }
  }, every);
}

const DEPTH_SERIES: uPlot.Series[] = [
  {},
  { label: 'available', stroke: '#2f6fdb', width: 2 },
  { label: 'leased', stroke: '#d9822b', width: 2 },
  { label: 'delayed', stroke: '#8a8f98', width: 2 },
];
const RATE_SERIES: uPlot.Series[] = [
  {},
  { label: 'leased / min', stroke: '#2e9e5b', width: 1, fill: 'rgba(46,158,91,0.45)', paths: uPlot.paths.bars?.({ size: [0.8, 40] }), points: { show: false } },
];

function columns(kind: string, series: QueueSeries): uPlot.AlignedData {
  const { depth, leases } = series;
  return kind === 'depth' ? [depth.at, depth.available, depth.leased, depth.delayed] : [leases.at, leases.tasks];
}

async function fetchSeries(url: string): Promise<QueueSeries | null> {
  try {
    const response = await fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } });
    return response.ok ? ((await response.json()) as QueueSeries) : null;
  } catch {
    return null;
  }
}

/** Draws a chart of the last hour's samples and keeps it current. */
async function chart(element: HTMLElement): Promise<void> {
  const url = element.dataset.series;
  const kind = element.dataset.chart ?? 'depth';
  if (!url) return;
  const series = await fetchSeries(url);
  if (!series) return;
  const options: uPlot.Options = {
    width: Math.max(280, element.clientWidth),
    height: 200,
    series: kind === 'depth' ? DEPTH_SERIES : RATE_SERIES,
    axes: [{}, { size: 60 }],
    scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
  };
  const data = columns(kind, series);
  const plot = new uPlot(options, data, element);
  element.dataset.drawn = String(data[0].length);
  setInterval(async () => {
    if (document.hidden) return;
    const fresh = await fetchSeries(url);
    if (fresh) {
      const data = columns(kind, fresh);
      plot.setData(data);
      element.dataset.drawn = String(data[0].length);
    }
  }, CHART_REFRESH_MS);
  new ResizeObserver(() => plot.setSize({ width: Math.max(280, element.clientWidth), height: 200 })).observe(element);
}

/** The purge button stays disabled until the queue's name is typed (the server checks it again). */
function confirmation(input: HTMLInputElement): void {
  const expected = input.dataset.confirm;
  const button = input.form?.querySelector<HTMLButtonElement>('[data-confirm-button]');
  if (!expected || !button) return;
  const update = () => {
    button.disabled = input.value !== expected;
  };
  input.addEventListener('input', update);
  update();
}

function start(): void {
  document.querySelectorAll<HTMLElement>('[data-refresh]').forEach(refreshing);
  document.querySelectorAll<HTMLElement>('[data-chart]').forEach((element) => void chart(element));
  document.querySelectorAll<HTMLInputElement>('input[data-confirm]').forEach(confirmation);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
