/** A whole payload as the task page shows it. */
export interface PayloadView {
  readonly kind: 'json' | 'text' | 'hex' | 'empty';
  readonly text: string;
  /** True when only the start is shown (hex of a large binary payload). */
  readonly truncated: boolean;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** Hex dumps past this are cut (a 1 MB payload would be a 4 MB page). */
const HEX_BYTES = 64 * 1024;

/** JSON pretty-printed, text as it is, anything else as a hex dump with its ASCII. */
export function payloadView(payload: Uint8Array): PayloadView {
  if (payload.length === 0) return { kind: 'empty', text: '', truncated: false };
  let text: string | null;
  try {
    text = strictUtf8.decode(payload);
  } catch {
    text = null;
  }
  // eslint-disable-next-line no-control-regex
  if (text !== null && !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) {
    const trimmed = text.trim();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        return { kind: 'json', text: JSON.stringify(JSON.parse(trimmed), null, 2), truncated: false };
      } catch {
        // Not JSON after all: shown as text.
      }
    }
    return { kind: 'text', text, truncated: false };
  }
  return { kind: 'hex', text: hexDump(payload.subarray(0, HEX_BYTES)), truncated: payload.length > HEX_BYTES };
}

/** 16 bytes a line: offset, hex, and the printable ASCII (others as "."). */
export function hexDump(bytes: Uint8Array): string {
  const lines: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const row = bytes.subarray(offset, offset + 16);
    const hex = [...row].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...row].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${offset.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join('\n');
}
