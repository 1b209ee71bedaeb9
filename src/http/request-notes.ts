import type { Context } from 'hono';

/** What a request's handlers leave for its log line: who called, and the error behind a 5xx. */
interface RequestNote {
  caller?: string;
  error?: unknown;
}

/** Keyed by the request object, so a note dies with its request. */
const notes = new WeakMap<Request, RequestNote>();

function noteOf(c: Context): RequestNote {
  let note = notes.get(c.req.raw);
  if (!note) {
    note = {};
    notes.set(c.req.raw, note);
  }
  return note;
}

/** Records the verified caller (its e-mail only: never a credential). */
export function noteCaller(c: Context, email: string | undefined): void {
  if (email !== undefined) noteOf(c).caller = email;
}

/** Records the error a 5xx answer stands for, so the request's log line carries its stack. */
export function noteError(c: Context, error: unknown): void {
  noteOf(c).error = error;
}

/** What the handlers noted about this request. */
export function requestNote(c: Context): Readonly<RequestNote> {
  return notes.get(c.req.raw) ?? {};
}
