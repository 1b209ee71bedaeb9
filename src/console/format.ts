/**
 * How the console shows figures. Everything returned here is plain text:
 * Hono's JSX escapes it when it renders, so a payload of `<script>` shows as
 * those characters.
 */

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A payload preview: its text when it is printable UTF-8, else hex. */
export interface PayloadPreview {
  readonly kind: 'text' | 'hex' | 'empty';
  readonly text: string;
  /** True when the preview shows only the start of the payload. */
  readonly truncated: boolean;
}

const PREVIEW_CHARS = 160;
const PREVIEW_BYTES = 48;

export function previewPayload(payload: Uint8Array | null | undefined): PayloadPreview {
  if (!payload || payload.length === 0) return { kind: 'empty', text: '', truncated: false };
  let text: string | null = null;
  try {
    text = strictUtf8.decode(payload);
  } catch {
    text = null;
  }
  // Control characters other than tab and newlines mean binary, whatever decodes.
  // eslint-disable-next-line no-control-regex
  if (text !== null && !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) {
    const chars = [...text];
    return { kind: 'text', text: chars.slice(0, PREVIEW_CHARS).join(''), truncated: chars.length > PREVIEW_CHARS };
  }
  const head = Buffer.from(payload.buffer, payload.byteOffset, Math.min(payload.length, PREVIEW_BYTES));
  const hex = head.toString('hex').replace(/(..)(?!$)/g, '$1 ');
  return { kind: 'hex', text: hex, truncated: payload.length > PREVIEW_BYTES };
}

/** 1536 -> "1.5 KiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

export { formatAge } from './relative-time.js';

/** Microseconds since the epoch as an ISO time to the second, in UTC. */
export function formatUsec(usec: number): string {
  return `${new Date(Math.floor(usec / 1000)).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A whole number with thousands separators. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export { formatRelative } from './relative-time.js';

/** A byte count spelled out, for a payload's size: "1 byte", "2,048 bytes (2.0 KiB)". */
export function formatSize(bytes: number): string {
  if (bytes === 1) return '1 byte';
  return bytes < 1024 ? `${formatCount(bytes)} bytes` : `${formatCount(bytes)} bytes (${formatBytes(bytes)})`;
}

/** Storage against its limit as a whole percentage, or null without a limit. */
export function storagePercent(used: number, limit: number | null): number | null {
  if (limit === null || limit <= 0) return null;
  return Math.floor((used / limit) * 100);
}

/** "1 dead letter", "1,063 dead letters". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
