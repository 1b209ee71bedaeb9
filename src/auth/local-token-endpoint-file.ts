import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a running server tells `taskqueue token` how to reach its local
 * token endpoint. The embedded engine admits one process at a time, so
 * while a server holds the data directory the CLI cannot open the database
 * and must ask the server to mint instead. The file sits in the data
 * directory beside the lock, readable by its owner only (0600): being able
 * to read it is the same privilege as being able to read the database files
 * and the signing key in them.
 */
export const TOKEN_ENDPOINT_FILE = 'taskqueue-token-endpoint.json';

/** What the file holds. */
export interface TokenEndpointInfo {
  /** The server process; the CLI checks it is the one holding the data directory lock. */
  readonly pid: number;
  /** The loopback URL of the mint endpoint. */
  readonly url: string;
  /** The secret a mint request must carry. */
  readonly secret: string;
  /**
   * The server's REST interface as reached from this machine, once it
   * listens: the operator commands of the CLI go there while the server
   * holds the data directory.
   */
  readonly serverUrl?: string;
}

/** Writes the file atomically (temp file + rename), owner-only from the first byte. */
export function writeTokenEndpointFile(dataDir: string, info: TokenEndpointInfo): string {
  const path = join(dataDir, TOKEN_ENDPOINT_FILE);
  const temp = `${path}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  writeFileSync(temp, `${JSON.stringify(info)}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(temp, path);
  return path;
}

/** The file's content, or null when it is missing or not what a server writes. */
export function readTokenEndpointFile(dataDir: string): TokenEndpointInfo | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(dataDir, TOKEN_ENDPOINT_FILE), 'utf8'));
  } catch {
    return null;
  }
  const info = parsed as Partial<TokenEndpointInfo> | null;
  if (
    info === null ||
    typeof info !== 'object' ||
    !Number.isSafeInteger(info.pid) ||
    typeof info.url !== 'string' ||
    typeof info.secret !== 'string'
  ) {
    return null;
  }
  return {
    pid: info.pid as number,
    url: info.url,
    secret: info.secret,
    ...(typeof info.serverUrl === 'string' ? { serverUrl: info.serverUrl } : {}),
  };
}

/** Removes the file if it is still the one `secret` was written with (a newer server may have replaced it). */
export function removeTokenEndpointFile(dataDir: string, secret: string): void {
  if (readTokenEndpointFile(dataDir)?.secret === secret) rmSync(join(dataDir, TOKEN_ENDPOINT_FILE), { force: true });
}
