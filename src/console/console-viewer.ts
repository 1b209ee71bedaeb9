import type { Context } from 'hono';
import type { AccessControl, QueueAction, RequestCredentials } from '../auth/access-control.js';
import { isQueueError, QueueError } from '../core/errors.js';
import type { QueueConfig } from '../core/queue-config.js';
import { csrfTokenFor, sessionToken } from './console-session.js';

/** Who is looking at the console, and what they may see and do. */
export interface Viewer {
  /** The verified e-mail; null when access control is off. */
  readonly email: string | null;
  /** Project administrator: sees action buttons, and the server accepts their actions. */
  readonly admin: boolean;
  /** The CSRF token every action form must carry. */
  readonly csrf: string;
  /** Signed in by a pasted token (may sign out), or by the proxy's Authorization header (may not). */
  readonly via: 'session' | 'header' | 'open';
  /** When the session ends (epoch ms), if the token said. */
  readonly expiresAt: number | null;
  /** Whether the viewer may do `action` on `queue`, by the same rules as REST. */
  may(queue: QueueConfig, action: QueueAction): Promise<boolean>;
}

/** Why there is no viewer: nobody signed in, or the token no longer works. */
export interface NoViewer {
  readonly signedOut: true;
  /** Shown on the sign-in page (never contains the token). */
  readonly message: string | null;
}

/**
 * Works out the viewer of a request with the AccessControl REST uses: the
 * proxy's Authorization header when there is one, else the session cookie's
 * token. One check with no queue and `queue.admin` tells administrators
 * (and access control being off) from everyone else; other callers are then
 * judged queue by queue, exactly as REST would judge them.
 */
export async function resolveViewer(
  c: Context,
  accessControl: AccessControl,
  queues: readonly QueueConfig[],
  /** A token being signed in with (the sign-in form), in place of the request's. */
  pastedToken?: string,
): Promise<Viewer | NoViewer> {
  const header = pastedToken === undefined ? c.req.header('authorization') : undefined;
  const cookieToken = pastedToken ?? (header === undefined ? sessionToken(c) : undefined);
  const credentials: RequestCredentials = {
    authorization: header ?? (cookieToken === undefined ? undefined : `Bearer ${cookieToken}`),
    oauthToken: undefined,
    apiKey: undefined,
  };
  const token = bearerOf(credentials.authorization);
  const via = header === undefined ? 'session' : 'header';
  const cache = new Map<string, Promise<boolean>>();
  const may = (queue: QueueConfig, action: QueueAction): Promise<boolean> => {
    const key = `${queue.name}\n${action}`;
    let answer = cache.get(key);
    if (!answer) {
      answer = allowed(accessControl.check(credentials, queue, action));
      cache.set(key, answer);
    }
    return answer;
  };
  try {
    const decision = await accessControl.check(credentials, null, 'queue.admin');
    if (decision.principal === null) {
      return {
        email: null,
        admin: true,
        csrf: csrfTokenFor(null),
        via: 'open',
        expiresAt: null,
        may: async () => true,
      };
    }
    return {
      email: decision.principal.email,
      admin: true,
      csrf: csrfTokenFor(token),
      via,
      expiresAt: decision.principal.expiresAt ?? null,
      may: async () => true,
    };
  } catch (error) {
    if (!isQueueError(error)) throw error;
    if (error.code === 'UNAUTHENTICATED' || error.code === 'INVALID_REQUEST') {
      return { signedOut: true, message: credentials.authorization === undefined ? null : describeRefusal(error) };
    }
    if (error.code !== 'PERMISSION_DENIED') throw error;
  }
  // Not an administrator. Who the token names, and until when, comes from
  // the first queue it may read; a token that may read none has nothing to
  // see here.
  for (const queue of queues) {
    try {
      const decision = await accessControl.check(credentials, queue, 'queue.get');
      cache.set(`${queue.name}\nqueue.get`, Promise.resolve(true));
      return {
        email: decision.principal?.email ?? null,
        admin: false,
        csrf: csrfTokenFor(token),
        via,
        expiresAt: decision.principal?.expiresAt ?? null,
        may,
      };
    } catch (error) {
      if (!isQueueError(error, 'PERMISSION_DENIED')) throw error;
      cache.set(`${queue.name}\nqueue.get`, Promise.resolve(false));
    }
  }
  return { signedOut: true, message: 'This token may not read any queue of this service.' };
}

async function allowed(check: Promise<unknown>): Promise<boolean> {
  try {
    await check;
    return true;
  } catch (error) {
    if (isQueueError(error, 'PERMISSION_DENIED') || isQueueError(error, 'UNAUTHENTICATED')) return false;
    throw error;
  }
}

function bearerOf(authorization: string | undefined): string | null {
  const match = authorization === undefined ? null : /^bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? (match[1] as string) : null;
}

/** The refusal as the sign-in page shows it: the access control's message, which never holds the token. */
function describeRefusal(error: QueueError): string {
  return error.message;
}

/** Narrows resolveViewer's answer. */
export function isSignedOut(viewer: Viewer | NoViewer): viewer is NoViewer {
  return 'signedOut' in viewer;
}
