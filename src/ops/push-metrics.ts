import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PushEvents } from '../core/push/dispatcher/push-transport.js';

/**
 * Push delivery metrics of this process:
 * `taskqueue_push_dispatches_total{queue,outcome}` (success, retry,
 * dead_letter, gone = deleted or purged in flight),
 * `taskqueue_push_delivery_seconds{queue}` (request time, outcome or not)
 * and `taskqueue_push_in_flight{queue}`.
 */
export function createPushMetrics(registry: Registry): PushEvents {
  const registers = [registry];
  const dispatches = new Counter({
    name: 'taskqueue_push_dispatches_total',
    help: 'Push attempts made by this process, by outcome: success (2xx), retry, dead_letter (out of retries), gone (deleted in flight).',
    labelNames: ['queue', 'outcome'] as const,
    registers,
  });
  const latency = new Histogram({
    name: 'taskqueue_push_delivery_seconds',
    help: 'Time from sending a push request to its response (or failure).',
    labelNames: ['queue'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600],
    registers,
  });
  const inFlight = new Gauge({
    name: 'taskqueue_push_in_flight',
    help: 'Push requests this process has in flight.',
    labelNames: ['queue'] as const,
    registers,
  });
  return {
    attempted(queue, outcome, seconds) {
      dispatches.inc({ queue, outcome });
      latency.observe({ queue }, seconds);
    },
    inFlight(queue, delta) {
      inFlight.inc({ queue }, delta);
    },
  };
}
