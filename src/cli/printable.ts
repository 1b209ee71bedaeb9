/**
 * Control characters (C0, DEL, C1) and the bidirectional overrides, which
 * a terminal would obey rather than show: a tag or name holding `\x1b[2J`
 * must not clear the operator's screen, nor a U+202E reverse a line.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text as a terminal may safely print it: each unprintable character as its escape (`\x1b`, `\u202e`). */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
