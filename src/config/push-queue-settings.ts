import { DEFAULT_PUSH_SETTINGS, type PushQueueSettings } from '../core/queue-config.js';
import { checkBaseUrl } from '../core/push/push-url.js';
import type { ConfigNode, ConfigSyntax } from './config-node.js';

/**
 * Largest `<rate>` (tasks per second), `<bucket-size>` and
 * `<max-concurrent-requests>` we accept. App Engine caps rate and bucket at
 * 500 and concurrency at 5,000; we accept more (an extension, see
 * docs/push-queues.md) but never change a value the file gives.
 */
export const MAX_PUSH_RATE_PER_SECOND = 1_000_000;
export const MAX_BUCKET_SIZE = 1_000_000;
export const MAX_CONCURRENT_REQUESTS = 1_000_000;

const RATE_UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };

/** A queue's element by canonical name, already checked against its pattern (build-service-config.ts). */
export type ElementOf = (name: string) => ConfigNode | undefined;

/** Reports a problem at an element (the caller adds file and queue). */
export type FailAt = (node: ConfigNode, message: string) => never;

/**
 * A push queue's delivery settings from its elements, App Engine's defaults
 * for those absent. Each value outside its range is an error naming the
 * element, the value and the range.
 */
export function buildPushSettings(element: ElementOf, syntax: ConfigSyntax, fail: FailAt): PushQueueSettings {
  const nodes = {
    rate: element('rate'),
    bucketSize: element('bucket-size'),
    maxConcurrentRequests: element('max-concurrent-requests'),
    targetUrl: element('target-url'),
    target: element('target'),
  };
  const label = (node: ConfigNode) => syntax.label(node.key);
  let ratePerSecond = DEFAULT_PUSH_SETTINGS.ratePerSecond;
  if (nodes.rate !== undefined) {
    const text = nodes.rate.text;
    if (text === '0') {
      ratePerSecond = 0;
    } else {
      const unit = RATE_UNIT_SECONDS[text.slice(-1)] ?? Number.NaN;
      ratePerSecond = Number(text.slice(0, text.indexOf('/'))) / unit;
      if (!(ratePerSecond > 0) || ratePerSecond > MAX_PUSH_RATE_PER_SECOND) {
        fail(
          nodes.rate,
          `${label(nodes.rate)} must be 0 or more than 0 and at most ${MAX_PUSH_RATE_PER_SECOND}/s, got "${text}"`,
        );
      }
    }
  }
  const bucketSize =
    nodes.bucketSize === undefined
      ? DEFAULT_PUSH_SETTINGS.bucketSize
      : integerIn(nodes.bucketSize, 1, MAX_BUCKET_SIZE, syntax, fail);
  const maxConcurrentRequests =
    nodes.maxConcurrentRequests === undefined
      ? null
      : integerIn(nodes.maxConcurrentRequests, 1, MAX_CONCURRENT_REQUESTS, syntax, fail);
  let targetUrl: string | null = null;
  if (nodes.targetUrl !== undefined) {
    const node = nodes.targetUrl;
    const problem = checkBaseUrl(node.text);
    if (problem !== null) fail(node, `${label(node)} ${problem}`);
    targetUrl = node.text;
  }
  const target = nodes.target === undefined ? null : nodes.target.text;
  return { ratePerSecond, bucketSize, maxConcurrentRequests, targetUrl, target };
}

function integerIn(node: ConfigNode, min: number, max: number, syntax: ConfigSyntax, fail: FailAt): number {
  const value = Number(node.text);
  if (!/^[0-9]+$/.test(node.text) || value < min || value > max) {
    fail(node, `${syntax.label(node.key)} must be an integer from ${min} to ${max}, got "${node.text}"`);
  }
  return value;
}
