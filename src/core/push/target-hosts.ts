import { QueueError } from '../errors.js';
import { PUSH_LIMITS } from './push-rules.js';

/**
 * Which hosts a task with an absolute URL (a Cloud Tasks HTTP target) may
 * reach: TASKQUEUE_TARGET_HOSTS, a comma-separated list of `host` (that
 * host on its scheme's default port), `host:port`, or `host:*` (any port).
 * A producer names the URL, so without the list a service would request
 * whatever its producers say, the metadata server and the database
 * included; the list is checked when a task is added and again before each
 * delivery.
 */
export interface TargetHostRule {
  /** The host as the URL parser writes it: lower case, IPv6 in brackets. */
  readonly host: string;
  /** A port, `*` for any, or `default` for the scheme's own (80, 443). */
  readonly port: number | '*' | 'default';
}

const ENTRY = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\*|\d{1,5}))?$/;

/** Reads TASKQUEUE_TARGET_HOSTS; an entry that is not a host (in its canonical form) is refused, named. */
export function parseTargetHosts(text: string): TargetHostRule[] {
  const rules: TargetHostRule[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const refuse = (why: string): never => {
      throw new QueueError(
        'INVALID_CONFIG',
        `TASKQUEUE_TARGET_HOSTS: "${entry}" ${why}; entries are host, host:port or host:* (e.g. "127.0.0.1:*,api.example.com")`,
        { field: 'TASKQUEUE_TARGET_HOSTS' },
      );
    };
    const match = ENTRY.exec(entry);
    if (match === null) return refuse('is not a host with an optional port');
    const [, host, port] = match as unknown as [string, string, string | undefined];
    const canonical = canonicalHost(host);
    if (canonical === null) return refuse('is not a host name or IP address');
    if (canonical !== host.toLowerCase()) return refuse(`is not written as the URL parser writes it ("${canonical}")`);
    if (port !== undefined && port !== '*' && (Number(port) < 1 || Number(port) > 65535)) {
      return refuse('has a port outside 1-65535');
    }
    rules.push({ host: canonical, port: port === undefined ? 'default' : port === '*' ? '*' : Number(port) });
  }
  return rules;
}

/** The host as WHATWG's URL parser canonicalises it, or null when it is none. */
function canonicalHost(host: string): string | null {
  try {
    const url = new URL(`http://${host}/`);
    return url.hostname === '' ? null : url.hostname;
  } catch {
    return null;
  }
}

/**
 * Why `text` may not be an HTTP target's URL under `rules`, or null when it
 * may. Beyond the list, a URL is refused when another parser could read a
 * different host from it than ours: a user name or password, a backslash,
 * control characters or spaces, or a host not written in its canonical form
 * (percent-encoded, an integer or octal IPv4 address, an IPv6 address in a
 * longer form, an IPv4-mapped one), so what is checked is what is requested.
 */
export function checkTargetUrl(text: string, rules: readonly TargetHostRule[]): string | null {
  if (text.length > PUSH_LIMITS.maxUrlLength) {
    return `is ${text.length} characters long; the limit is ${PUSH_LIMITS.maxUrlLength}`;
  }
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\\\s\x00-\x1f\x7f]/.test(text)) return 'holds a backslash, a space or a control character';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not an absolute URL (such as "https://worker.example.com/task")';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `has scheme "${url.protocol}"; only http and https`;
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(text)?.[1];
  if (authority === undefined) return 'has no host (write it as "https://host/path")';
  if (authority.includes('@') || url.username !== '' || url.password !== '') {
    return 'carries a user name or password; send credentials as a header or an OIDC token';
  }
  const rawHost = authority.replace(/:\d*$/, '').toLowerCase();
  if (rawHost !== url.hostname) return `writes its host as "${rawHost}"; write it as "${url.hostname}"`;
  if (!allowed(url, rules)) {
    if (rules.length === 0) {
      return 'reaches a host outside the allowed targets: no TASKQUEUE_TARGET_HOSTS is set, so HTTP targets are off';
    }
    return `reaches ${url.host}, which TASKQUEUE_TARGET_HOSTS does not list`;
  }
  return null;
}

function allowed(url: URL, rules: readonly TargetHostRule[]): boolean {
  // url.port is '' for the scheme's default port (the parser drops ":443" on https).
  return rules.some(
    (rule) =>
      rule.host === url.hostname &&
      (rule.port === '*' || (rule.port === 'default' ? url.port === '' : String(rule.port) === url.port)),
  );
}
