/**
 * A small line chart as SVG text, with no dependency: one or more series over
 * a shared x axis (logarithmic for counts), axes with units, tick labels and
 * every point labelled with its value, so the shape of a scale curve reads at
 * a glance in docs/ and on GitHub.
 */

export interface ChartSeries {
  readonly label: string;
  /** [x, y] pairs; y null = not measured at that x (the line breaks there). */
  readonly points: readonly (readonly [number, number | null])[];
}

export interface LineChart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly ChartSeries[];
  /** Logarithmic x axis (counts); default true. */
  readonly logX?: boolean;
  /** A line under the title (what was measured, on what). */
  readonly subtitle?: string;
  /** Horizontal reference lines (a target: "pages under 100 ms"). */
  readonly targets?: readonly { readonly y: number; readonly label: string }[];
}

const WIDTH = 640;
const HEIGHT = 400;
const MARGIN = { left: 72, right: 24, top: 56, bottom: 84 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

/** 10k, 1M, 2.5M, 100: short count labels. */
export function formatCount(value: number): string {
  const units: [number, string][] = [
    [1e9, 'G'],
    [1e6, 'M'],
    [1e3, 'k'],
  ];
  for (const [size, suffix] of units) {
    if (Math.abs(value) >= size) return `${trim(value / size)}${suffix}`;
  }
  return trim(value);
}

/** A y value with about three significant digits. */
export function formatValue(value: number): string {
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 10_000) return formatCount(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1).replace(/\.0$/, '');
  if (abs >= 1) return value.toFixed(2).replace(/\.?0+$/, '');
  return Number(value.toPrecision(2)).toString();
}

function trim(value: number): string {
  return Number(value.toPrecision(3)).toString();
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** "Nice" linear ticks from 0 to at least `max`: 1, 2 or 5 times a power of ten. */
export function linearTicks(max: number, wanted = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / wanted;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let t = 0; t < max + step * 0.999; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

/** Powers of ten covering [min, max]. */
export function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) ticks.push(10 ** e);
  return ticks;
}

export function renderLineChart(chart: LineChart): string {
  const logX = chart.logX ?? true;
  const xs = chart.series.flatMap((s) => s.points.map(([x]) => x));
  const ys = chart.series.flatMap((s) => s.points.flatMap(([, y]) => (y === null ? [] : [y])));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;

  let xTicks: number[];
  let xPos: (x: number) => number;
  if (logX) {
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    // One point (or equal points): a decade either side, so it sits in the middle.
    xTicks = logTicks(lo === hi ? lo / 10 : lo, lo === hi ? hi * 10 : hi);
    const a = Math.log10(xTicks[0]!);
    const b = Math.log10(xTicks.at(-1)!);
    xPos = (x) => MARGIN.left + ((Math.log10(x) - a) / (b - a || 1)) * plotW;
  } else {
    xTicks = linearTicks(Math.max(...xs));
    const b = xTicks.at(-1)!;
    xPos = (x) => MARGIN.left + (x / (b || 1)) * plotW;
  }
  const yTicks = linearTicks(Math.max(0, ...ys, ...(chart.targets ?? []).map((t) => t.y)) * 1.1);
  const yMax = yTicks.at(-1)!;
  const yPos = (y: number) => MARGIN.top + plotH - (y / (yMax || 1)) * plotH;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
  );
  if (chart.subtitle)
    out.push(`<text x="${WIDTH / 2}" y="40" text-anchor="middle" fill="#555">${escapeXml(chart.subtitle)}</text>`);

  // Grid and tick labels.
  for (const t of yTicks) {
    const y = yPos(t).toFixed(1);
    out.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y}" y2="${y}" stroke="#e4e4e4"/>`);
    out.push(
      `<text x="${MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(formatValue(t))}</text>`,
    );
  }
  for (const t of xTicks) {
    const x = xPos(t).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${x}" y="${MARGIN.top + plotH + 16}" text-anchor="middle">${escapeXml(formatCount(t))}</text>`);
  }
  // Axes and their units.
  out.push(
    `<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#333"/>`,
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH}" stroke="#333"/>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${MARGIN.top + plotH + 36}" text-anchor="middle">${escapeXml(chart.xLabel)}${logX ? ' (log scale)' : ''}</text>`,
    `<text transform="translate(16 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`,
  );

  for (const target of chart.targets ?? []) {
    const y = yPos(target.y).toFixed(1);
    out.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y}" y2="${y}" stroke="#888" stroke-dasharray="6 4"/>`,
    );
    out.push(
      `<text x="${WIDTH - MARGIN.right - 4}" y="${Number(y) - 4}" text-anchor="end" fill="#666" font-size="11">${escapeXml(target.label)}</text>`,
    );
  }

  // Point labels placed so that none overlaps another: moved up or down a line at a time until free.
  const placed: { x: number; y: number; w: number }[] = [];
  const freeY = (x: number, y: number, w: number): number => {
    const clashes = (cy: number) =>
      placed.some((p) => Math.abs(p.x - x) < (p.w + w) / 2 + 2 && Math.abs(p.y - cy) < 12);
    const inside = (cy: number) => cy >= MARGIN.top + 10 && cy <= MARGIN.top + plotH - 3;
    for (let step = 0; step < 16; step++) {
      const cy = y + (step % 2 === 0 ? -1 : 1) * Math.ceil(step / 2) * 12;
      if (inside(cy) && !clashes(cy)) return cy;
    }
    return Math.min(Math.max(y, MARGIN.top + 10), MARGIN.top + plotH - 3);
  };
  chart.series.forEach((series, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    // Lines between consecutive measured points; a null breaks the line.
    let path = '';
    let pen = false;
    for (const [x, y] of series.points) {
      if (y === null) {
        pen = false;
        continue;
      }
      path += `${pen ? 'L' : 'M'}${xPos(x).toFixed(1)} ${yPos(y).toFixed(1)} `;
      pen = true;
    }
    if (path) out.push(`<path d="${path.trim()}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const [x, y] of series.points) {
      if (y === null) continue;
      const px = xPos(x).toFixed(1);
      const py = yPos(y);
      out.push(`<circle cx="${px}" cy="${py.toFixed(1)}" r="3.5" fill="${colour}"/>`);
      // Labels start above (even series) or below (odd) their point.
      const text = formatValue(y);
      const width = text.length * 6.5;
      const ly = freeY(Number(px), py + (i % 2 === 0 ? -8 : 16), width);
      placed.push({ x: Number(px), y: ly, w: width });
      out.push(
        `<text x="${px}" y="${ly.toFixed(1)}" text-anchor="middle" fill="${colour}" font-size="11">${escapeXml(text)}</text>`,
      );
    }
    // Legend under the x axis label, three to a row.
    const lx = MARGIN.left + (i % 3) * Math.floor(plotW / 3);
    const ly = HEIGHT - 28 + Math.floor(i / 3) * 16;
    out.push(`<line x1="${lx}" x2="${lx + 18}" y1="${ly}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`);
    out.push(`<text x="${lx + 24}" y="${ly}" dominant-baseline="middle">${escapeXml(series.label)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
