import { invalidField } from './http-error.js';

/**
 * One alphabet per string: standard (`+/`) or URL-safe (`-_`), then at most
 * two `=` of padding. Mixing the alphabets, whitespace, or any other byte is
 * refused.
 */
const STANDARD = /^[A-Za-z0-9+/]*(={0,2})$/;
const URL_SAFE = /^[A-Za-z0-9_-]*(={0,2})$/;

/**
 * Decodes `payloadBase64` strictly. `Buffer.from(s, 'base64')` never
 * rejects anything (`"@@@"` decodes to 0 bytes, trailing junk is dropped), so
 * the text is checked first: one alphabet, padding optional but correct when
 * present, and no length that cannot come from base64 (4n+1 characters).
 * Unused low bits in the last character are tolerated, as App Engine did
 * (`asdf123` was accepted there and read back as `asdf120=`).
 */
export function decodePayloadBase64(text: string, field = 'payloadBase64'): Buffer {
  const match = STANDARD.exec(text) ?? URL_SAFE.exec(text);
  const padding = match?.[1]?.length ?? 0;
  const dataLength = text.length - padding;
  const valid =
    match !== null &&
    dataLength % 4 !== 1 &&
    (padding === 0 || (text.length % 4 === 0 && padding === (4 - (dataLength % 4)) % 4));
  if (!valid) {
    throw invalidField(
      field,
      `Invalid ${field} value: expected base64 (standard or URL-safe alphabet, padding optional)`,
    );
  }
  return Buffer.from(text, 'base64');
}

/** Payloads go out URL-safe with padding, as App Engine returned them; decoders of either alphabet read it. */
export function encodePayloadBase64(payload: Buffer): string {
  const text = payload.toString('base64url');
  const rest = text.length % 4;
  return rest === 0 ? text : text + '='.repeat(4 - rest);
}
