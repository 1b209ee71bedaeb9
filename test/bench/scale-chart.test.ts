import { describe, expect, it } from 'vitest';
import { diskNeeded } from '../../bench/scale/disk-check.js';
import { DEFAULT_POINTS, parseCount, parseScaleOptions } from '../../bench/scale/scale-options.js';
import { formatCount, formatValue, linearTicks, logTicks, renderLineChart } from '../../bench/scale/svg-chart.js';

describe('scale options', () => {
  it('puts the full run at about 15 GB of disk (the 50M-held-name point), a small run at a few', () => {
    const gb = (argv: string[]) => diskNeeded(parseScaleOptions(['--scale', ...argv])) / 1024 ** 3;
    expect(gb([])).toBeGreaterThan(12);
    expect(gb([])).toBeLessThan(16);
    expect(gb(['--waiting=10k,1m', '--held=1m', '--pages=1m', '--search=1m'])).toBeLessThan(3);
  });

  it('reads counts written the way the docs write them', () => {
    expect(parseCount('10k')).toBe(10_000);
    expect(parseCount('1m')).toBe(1_000_000);
    expect(parseCount('2.5M')).toBe(2_500_000);
    expect(parseCount('1_000')).toBe(1_000);
    expect(() => parseCount('ten')).toThrow(/not a count/);
    expect(() => parseCount('0')).toThrow(/positive/);
  });

  it('defaults to the full points and lets one curve be reproduced', () => {
    const all = parseScaleOptions(['--scale']);
    expect(all.curves).toEqual(['waiting', 'queues', 'held', 'pages', 'search']);
    expect(all.search).toEqual(DEFAULT_POINTS.search);
    expect(all.waiting).toEqual(DEFAULT_POINTS.waiting);
    expect(all.held).toEqual(DEFAULT_POINTS.held);

    const one = parseScaleOptions(['--scale', '--curves=waiting,held', '--points=10k,1m', '--held=100k']);
    expect(one.curves).toEqual(['waiting', 'held']);
    expect(one.waiting).toEqual([10_000, 1_000_000]);
    expect(one.held).toEqual([100_000]);
    expect(one.pages).toEqual([10_000, 1_000_000]);
    expect(one.queues).toEqual(DEFAULT_POINTS.queues);
    expect(() => parseScaleOptions(['--curves=waiting,speed'])).toThrow(/unknown curve "speed"/);
  });
});

describe('SVG line chart', () => {
  it('picks round ticks', () => {
    expect(linearTicks(37)).toEqual([0, 10, 20, 30, 40]);
    expect(linearTicks(0.9)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(logTicks(10_000, 1_000_000)).toEqual([10_000, 100_000, 1_000_000]);
    expect(formatCount(50_000_000)).toBe('50M');
    expect(formatCount(1_000)).toBe('1k');
    expect(formatValue(0.4213)).toBe('0.42');
    expect(formatValue(31.61)).toBe('31.6');
  });

  it('draws axes with units, a log x axis, labelled points and a break where a point is missing', () => {
    const svg = renderLineChart({
      title: 'Lease latency <by> waiting tasks',
      xLabel: 'waiting tasks',
      yLabel: 'lease call, ms',
      series: [
        {
          label: 'p50',
          points: [
            [10_000, 0.6],
            [1_000_000, 0.7],
            [10_000_000, 0.9],
          ],
        },
        {
          label: 'p99',
          points: [
            [10_000, 2],
            [1_000_000, null],
            [10_000_000, 5],
          ],
        },
      ],
      targets: [{ y: 4, label: 'target' }],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('Lease latency &lt;by&gt; waiting tasks');
    expect(svg).toContain('waiting tasks (log scale)');
    expect(svg).toContain('lease call, ms');
    for (const tick of ['10k', '100k', '1M', '10M']) expect(svg).toContain(`>${tick}</text>`);
    // Five measured points, five dots and five value labels.
    expect(svg.match(/<circle /g)).toHaveLength(5);
    for (const value of ['0.6', '0.7', '0.9', '2', '5']) expect(svg).toContain(`>${value}</text>`);
    // p99 has no 1M point: its line is two pieces (two moves), p50's one.
    const paths = [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) => m[1]!);
    expect(paths.map((d) => d.split('M').length - 1)).toEqual([1, 2]);
    expect(svg).toContain('stroke-dasharray');
  });
});
