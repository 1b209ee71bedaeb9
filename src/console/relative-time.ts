/**
 * 240_000 ms ahead -> "in 4 min"; 180_000 ms behind -> "3 min ago". Shared
 * by the pages (written on the server) and the client script (which keeps
 * them current), so both word a time alike.
 */
export function formatRelative(deltaMs: number): string {
  const ahead = deltaMs > 0;
  const s = Math.round(Math.abs(deltaMs) / 1000);
  if (s < 5) return 'now';
  let span: string;
  if (s < 60) span = `${s} s`;
  else if (s < 3600) span = `${Math.round(s / 60)} min`;
  else if (s < 86400) span = `${Math.round(s / 360) / 10} h`;
  else span = `${Math.round(s / 8640) / 10} d`;
  return ahead ? `in ${span}` : `${span} ago`;
}

/** Epoch ms as "2026-11-25 03:04:05 UTC", or in the browser's zone ("... CET") when `zone` is local. */
export function formatAbsolute(ms: number, zone: 'UTC' | 'local'): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (zone === 'UTC') return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  const name =
    new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName')
      ?.value ?? 'local';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${name}`;
}

/** 3725 -> "1h 2m". */
export function formatAge(seconds: number | null): string {
  if (seconds === null) return '-';
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}
