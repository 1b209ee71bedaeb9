/** What the console and REST show in place of a secret header's value. */
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
 * A push task's headers as the console and REST `tasks.get`/`tasks.list`
 * show them: every name, in order, with secret values replaced by `MASKED`.
 * Anyone who may read a queue may read its tasks, but a credential the
 * producer set for the handler is not theirs to read: the value is kept
 * for delivery (and an operator's export) only, so neither a page, a
 * screenshot nor a REST reader can leak it.
 */
export function maskHeaders(headers: readonly (readonly [string, string])[]): [string, string][] {
  return headers.map(([name, value]) => [name, isSecretHeader(name) ? MASKED : value]);
}
