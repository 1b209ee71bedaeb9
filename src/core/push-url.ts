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

/** The URL a task is delivered to: the base without its trailing slashes, then the task's path (which starts with `/`). */
export function deliveryUrl(baseUrl: string, taskUrl: string): string {
  return baseUrl.replace(/\/+$/, '') + taskUrl;
}
