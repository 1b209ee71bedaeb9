/**
 * A deliberately loose e-mail check: exactly one `@`, something on both sides,
 * no whitespace. ACL entries are compared with the e-mail of an OAuth token,
 * so the point is to catch paste accidents (`alice example.com`, a stray
 * comma-separated list), not to implement RFC 5322.
 */
export function isEmailAddress(text: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(text);
}
