/** What the console shows in place of a secret header's value. */
export const MASKED = '(hidden)';

/**
 * Header names whose values are credentials. `Authorization` and cookies by
 * name; anything else whose name says key, token, secret, password,
 * signature, session or credential (X-Api-Key, X-Hub-Signature,
 * X-Auth-Token...). Matching a word rather than listing names hides a
 * secret under a name we never thought of, at the cost of hiding now and
 * then a value that was harmless.
 */
const SECRET_NAME = /authorization|cookie|key|token|secret|passw|signature|session|credential|auth/i;

/** Whether a header's value must not be shown. */
export function isSecretHeader(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * A push task's headers as the console shows them: every name, in order,
 * with secret values replaced by `MASKED`. The value never reaches the
 * page, so neither the HTML nor a screenshot can leak it.
 */
export function maskHeaders(headers: readonly (readonly [string, string])[]): [string, string][] {
  return headers.map(([name, value]) => [name, isSecretHeader(name) ? MASKED : value]);
}
