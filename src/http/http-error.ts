/**
 * An error of the HTTP protocol itself (a malformed parameter, a body too
 * large, a failed precondition), as opposed to a QueueError raised by the
 * service. It carries its status and Google `reason` directly, because these
 * conditions have no counterpart in the core's error codes.
 */
export class HttpError extends Error {
  readonly status: number;
  /** Google's machine-readable reason (`invalidParameter`, `required`, `conditionNotMet`, ...). */
  readonly reason: string;
  /** The parameter or header at fault, reported as `location` in the envelope. */
  readonly location: { readonly type: 'parameter' | 'header'; readonly name: string } | undefined;
  /** Extra response headers (`Connection: close` after an oversized body). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    reason: string,
    message: string,
    options: { location?: HttpError['location']; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.reason = reason;
    this.location = options.location;
    this.headers = options.headers ?? {};
  }
}

/** 400 for a query parameter that is present but not acceptable; the message names it. */
export function invalidParameter(name: string, message: string): HttpError {
  return new HttpError(400, 'invalidParameter', message, { location: { type: 'parameter', name } });
}

/** 400 for a required query parameter that is missing. */
export function requiredParameter(name: string): HttpError {
  return new HttpError(400, 'required', `Required parameter: ${name}`, { location: { type: 'parameter', name } });
}

/** 400 for a request body field that is not acceptable. */
export function invalidField(field: string, message: string): HttpError {
  return new HttpError(400, 'invalid', message, { location: { type: 'parameter', name: field } });
}

/** A value quoted in a message: JSON-escaped and cut short, so no message echoes a large or hostile input whole. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value);
}
