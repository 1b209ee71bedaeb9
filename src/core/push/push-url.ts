import { DOUBLE_DOT_SEGMENT, MAYBE_DOUBLE_DOT, PATH_SEPARATOR, SINGLE_DOT_SEGMENT } from './push-rules.js';

/**
 * Where a push task goes: App Engine resolved a task's relative URL against
 * the app itself; off App Engine the queue's `<target-url>` (else
 * TASKQUEUE_PUSH_BASE_URL) is that base.
 */

/** Why `text` is not a usable base URL (absolute http or https, no query, no fragment), or null when it is. */
export function checkBaseUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `must be an absolute http(s) URL such as "https://worker.example.com", got "${text}"`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must be an http or https URL, got "${text}"`;
  }
  if (url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#')) {
    return `must not have a query string or fragment (task URLs add their own), got "${text}"`;
  }
  if (url.username !== '' || url.password !== '') {
    return `must not carry a user name or password (set an Authorization header on the task instead), got "${text}"`;
  }
  return null;
}

/**
 * The URL a task is delivered to: the base without its trailing slashes,
 * then the task's path (which starts with `/`), normalized as the HTTP
 * client normalizes it before sending (WHATWG URL: dot segments resolved,
 * `%2e` read as `.`, `\` as `/`); null when that leaves the base's path
 * (`/hooks/base` + `/../../x` would arrive at `/x`). The result is what is
 * requested, and the audience of its token.
 */
export function deliveryUrl(baseUrl: string, taskUrl: string): string | null {
  const base = baseUrl.replace(/\/+$/, '');
  let url: URL;
  let basePath: string;
  try {
    url = new URL(base + taskUrl);
    basePath = new URL(base).pathname.replace(/\/+$/, '');
  } catch {
    return null;
  }
  if (basePath !== '' && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return null;
  return url.href;
}

/**
 * Whether a task's path climbs above its own root through dot segments
 * (push-rules.ts), so that joined to any base path it would leave it: the
 * rule adds check (the SQL API's add_push_task walks the same segments). A
 * query is not path.
 */
export function pathClimbsOut(taskUrl: string): boolean {
  if (!MAYBE_DOUBLE_DOT.test(taskUrl)) return false;
  const path = taskUrl.split('?')[0]!;
  let depth = 0;
  // The first segment is the empty one before the leading `/`.
  for (const segment of path.split(PATH_SEPARATOR).slice(1)) {
    if (DOUBLE_DOT_SEGMENT.test(segment)) {
      if (--depth < 0) return true;
    } else if (!SINGLE_DOT_SEGMENT.test(segment)) {
      depth++;
    }
  }
  return false;
}
