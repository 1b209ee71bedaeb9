import { isQueueError, type ErrorCode } from '../../src/core/errors.js';

/** The HTTP status the REST layer gives each code access control raises. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  INVALID_REQUEST: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  TRANSIENT_ERROR: 503,
};

/** What a check came to, as the HTTP answer would show it. */
export interface AuthOutcome {
  readonly status: number;
  /** The WWW-Authenticate header, or null when the answer carries none. */
  readonly wwwAuthenticate: string | null;
  /** Google's errors[].reason, or null for a success. */
  readonly reason: string | null;
}

/** Runs a check and reports its outcome instead of throwing (anything unexpected still throws). */
export async function outcomeOf(check: Promise<unknown>): Promise<AuthOutcome> {
  try {
    await check;
    return { status: 200, wwwAuthenticate: null, reason: null };
  } catch (error) {
    if (!isQueueError(error) || STATUS[error.code] === undefined) throw error;
    const header = error.details.wwwAuthenticate;
    const reason = error.details.reason;
    return {
      status: STATUS[error.code] as number,
      wwwAuthenticate: typeof header === 'string' ? header : null,
      reason: typeof reason === 'string' ? reason : null,
    };
  }
}
