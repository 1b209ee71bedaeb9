/** The URL with its password replaced by `***`, for logs and messages; `(unparsable URL)` when it does not parse. */
export function redactDatabaseUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = '***';
    // Query parameters may carry a password too (`?password=...`).
    for (const key of [...url.searchParams.keys()]) {
      if (/pass|secret|key/i.test(key)) url.searchParams.set(key, '***');
    }
    return url.toString();
  } catch {
    return '(unparsable URL)';
  }
}
