import type { HeldPoint } from './held-curve.js';
import { mb } from './measure.js';
import type { PagesPoint } from './pages-curve.js';
import type { QueuesPoint } from './queues-curve.js';
import type { LineChart } from './svg-chart.js';
import type { WaitingPoint } from './waiting-curve.js';

/** The charts of each curve: file name (without .svg) -> chart. */
export type Charts = Record<string, LineChart>;

export function waitingCharts(points: readonly WaitingPoint[], note: string): Charts {
  const at = <T>(f: (p: WaitingPoint) => T) => points.map((p) => [p.waiting, f(p)] as [number, T]);
  return {
    'waiting-lease': {
      title: 'Lease latency by waiting tasks (one queue)',
      subtitle: note,
      xLabel: 'waiting tasks',
      yLabel: 'lease call, ms',
      series: [
        { label: 'numTasks 1, p50', points: at((p) => p.lease1.p50Ms) },
        { label: 'numTasks 1, p99', points: at((p) => p.lease1.p99Ms) },
        { label: 'numTasks 100, p50', points: at((p) => p.lease100.p50Ms) },
        { label: 'numTasks 100, p99', points: at((p) => p.lease100.p99Ms) },
      ],
    },
    'waiting-add': {
      title: 'Add throughput by waiting tasks (batches of 100, 4 producers)',
      subtitle: note,
      xLabel: 'waiting tasks',
      yLabel: 'tasks/s',
      series: [{ label: 'adds', points: at((p) => p.addTasksPerSecond) }],
    },
    'waiting-size': {
      title: 'tasks table and index sizes by waiting tasks',
      subtitle: note,
      xLabel: 'waiting tasks',
      yLabel: 'MiB',
      series: [
        { label: 'table (heap)', points: at((p) => mb(p.tasks.tableBytes)) },
        ...Object.keys(points[0]?.tasks.indexBytes ?? {}).map((index) => ({
          label: index,
          points: at((p) => mb(p.tasks.indexBytes[index] ?? 0)),
        })),
      ],
    },
  };
}

export function queuesCharts(points: readonly QueuesPoint[], note: string): Charts {
  const at = (f: (p: QueuesPoint) => number) => points.map((p) => [p.queues, f(p)] as [number, number]);
  return {
    'queues-latency': {
      title: 'Latency by configured queues (tasks spread over them)',
      subtitle: note,
      xLabel: 'configured queues',
      yLabel: 'ms (p50)',
      series: [
        { label: 'lease 1', points: at((p) => p.lease1.p50Ms) },
        { label: 'add 1', points: at((p) => p.add1.p50Ms) },
        { label: 'overview', points: at((p) => p.overview.p50Ms) },
        { label: 'console queue list', points: at((p) => p.consolePage.p50Ms) },
      ],
    },
    'queues-start': {
      title: 'Config load and start-up by configured queues',
      subtitle: note,
      xLabel: 'configured queues',
      yLabel: 'ms',
      series: [
        { label: 'config load', points: at((p) => p.configLoadMs) },
        { label: 'first start', points: at((p) => p.firstStartMs) },
        { label: 'restart', points: at((p) => p.restartMs) },
      ],
    },
  };
}

export function heldCharts(points: readonly HeldPoint[], note: string): Charts {
  const at = (f: (p: HeldPoint) => number) => points.map((p) => [p.held, f(p)] as [number, number]);
  return {
    'held-latency': {
      title: 'Named adds and leases by held names (tombstones)',
      subtitle: note,
      xLabel: 'tombstone rows',
      yLabel: 'ms (p50)',
      series: [
        { label: 'add with a name', points: at((p) => p.namedAdd.p50Ms) },
        { label: 'lease 1, idle', points: at((p) => p.leaseIdle.p50Ms) },
        { label: 'lease 1, during cleanup', points: at((p) => p.leaseDuringCleanup.p50Ms) },
      ],
    },
    'held-cleanup': {
      title: 'Cleanup throughput by held names',
      subtitle: note,
      xLabel: 'tombstone rows',
      yLabel: 'rows removed/s',
      series: [{ label: 'cleanup', points: at((p) => p.cleanupRowsPerSecond) }],
    },
    'held-size': {
      title: 'task_tombstones size (table + indexes)',
      subtitle: note,
      xLabel: 'tombstone rows',
      yLabel: 'MiB',
      series: [
        { label: 'filled', points: at((p) => mb(p.tombstones.totalBytes)) },
        { label: 'after cleanup, churn, VACUUM', points: at((p) => mb(p.afterChurn.totalBytes)) },
      ],
    },
  };
}

export function pagesCharts(points: readonly PagesPoint[], note: string): Charts {
  const at = (f: (p: PagesPoint) => number) => points.map((p) => [p.rows, f(p)] as [number, number]);
  return {
    'operator-pages': {
      title: 'Console and CLI pages by dead letters / audit entries',
      subtitle: note,
      targets: [{ y: 100, label: 'target: under 100 ms' }],
      xLabel: 'dead letters (and audit entries)',
      yLabel: 'ms (p50)',
      series: [
        { label: 'console queues', points: at((p) => p.consoleQueues.p50Ms) },
        { label: 'console queue', points: at((p) => p.consoleQueue.p50Ms) },
        { label: 'console audit', points: at((p) => p.consoleAudit.p50Ms) },
        { label: 'CLI queues', points: at((p) => p.cliQueues.p50Ms) },
        { label: 'CLI dead-letters page', points: at((p) => p.cliDeadLettersMiddle.p50Ms) },
      ],
    },
  };
}
