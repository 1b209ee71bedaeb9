// The queue page's two charts, over the same window (the last hour, ending
// now), in the zone the viewer chose, with whole-number axes (tasks come in
// ones), and a sentence in place of a chart when there is nothing to draw.
// They are redrawn on the page's refresh tick (live.ts), never on a clock
// of their own.
import uPlot from 'uplot';
import { onRefresh } from './live.js';
import { formatAbsolute } from '../relative-time.js';
import { currentZone, onZoneChange } from './times.js';

/** What /console/queues/:queue/series.json answers. */
interface QueueSeries {
  depth: { at: number[]; available: number[]; leased: number[]; delayed: number[] };
  leases: { at: number[]; tasks: number[] };
}

const WINDOW_SECONDS = 3600;
const HEIGHT = 200;
/** Steps of the y axis: whole numbers only. */
const INTEGER_STEPS = [
  1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 2.5e3, 5e3, 1e4, 2e4, 2.5e4, 5e4, 1e5, 2e5, 2.5e5, 5e5, 1e6,
  1e7, 1e8,
];

const DEPTH_SERIES: uPlot.Series[] = [
  {},
  { label: 'available', stroke: '#2f6fdb', width: 2 },
  { label: 'leased', stroke: '#c26a12', width: 2 },
  { label: 'delayed', stroke: '#6b7280', width: 2, dash: [6, 4] },
];
const RATE_SERIES: uPlot.Series[] = [
  {},
  {
    label: 'leased / min',
    stroke: '#2e9e5b',
    width: 1,
    fill: 'rgba(46,158,91,0.45)',
    paths: uPlot.paths.bars?.({ size: [0.8, 40] }),
    points: { show: false },
  },
];

function columns(kind: string, series: QueueSeries): uPlot.AlignedData {
  const { depth, leases } = series;
  return kind === 'depth' ? [depth.at, depth.available, depth.leased, depth.delayed] : [leases.at, leases.tasks];
}

/** Why there is nothing to draw, or null when there is. */
function emptyReason(kind: string, data: uPlot.AlignedData): string | null {
  const values = data.slice(1).flatMap((column) => Array.from(column as ArrayLike<number | null | undefined>));
  if (kind === 'depth') {
    if (data[0].length === 0) return 'No samples yet: the service samples the queue every few seconds.';
    return values.every((v) => !v) ? 'The queue held no task in the last hour.' : null;
  }
  return values.every((v) => !v) ? 'No task was leased in the last hour.' : null;
}

async function fetchSeries(url: string): Promise<QueueSeries | null> {
  try {
    const response = await fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } });
    return response.ok && !response.redirected ? ((await response.json()) as QueueSeries) : null;
  } catch {
    return null;
  }
}

function options(element: HTMLElement, kind: string, width: number): uPlot.Options {
  const zone = currentZone();
  const now = Date.now() / 1000;
  return {
    width,
    height: HEIGHT,
    series: kind === 'depth' ? DEPTH_SERIES : RATE_SERIES,
    tzDate: (ts) => (zone === 'UTC' ? uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC') : new Date(ts * 1e3)),
    axes: [
      // Hours and minutes, 24-hour, in the chosen zone (the status bar names it).
      { values: (_u, splits) => splits.map((ts) => formatAbsolute(ts * 1000, zone).slice(11, 16)) },
      {
        size: 60,
        incrs: INTEGER_STEPS,
        // The ticks are drawn on a canvas: the element carries them too, for tests and screen readers' neighbours.
        values: (_u, splits) => {
          element.dataset.yTicks = splits.join(' ');
          return splits.map((v) => v.toLocaleString('en-US'));
        },
      },
    ],
    scales: {
      x: { time: true, range: () => [now - WINDOW_SECONDS, now] },
      y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max))] },
    },
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
  };
}

/** One chart element: drawn now, again on every refresh tick and change of zone. */
function chart(element: HTMLElement): void {
  const url = element.dataset.series;
  const kind = element.dataset.chart ?? 'depth';
  if (!url) return;
  let plot: uPlot | null = null;
  let last: QueueSeries | null = null;
  const width = () => Math.max(260, element.clientWidth);

  const draw = (series: QueueSeries) => {
    last = series;
    const data = columns(kind, series);
    const empty = emptyReason(kind, data);
    plot?.destroy();
    plot = null;
    element.replaceChildren();
    element.dataset.drawn = String(data[0].length);
    if (empty !== null) {
      const p = document.createElement('p');
      p.className = 'chart-empty';
      p.textContent = empty;
      element.append(p);
      element.dataset.empty = 'true';
      return;
    }
    delete element.dataset.empty;
    plot = new uPlot(options(element, kind, width()), data, element);
  };

  const refresh = async () => {
    const series = await fetchSeries(url);
    if (series) draw(series);
  };
  void refresh();
  onRefresh(refresh);
  onZoneChange(() => last && draw(last));
  new ResizeObserver(() => plot?.setSize({ width: width(), height: HEIGHT })).observe(element);
}

export function startCharts(): void {
  document.querySelectorAll<HTMLElement>('[data-chart]').forEach(chart);
}
