/**
 * A running server refused a request (--url mode): its HTTP status and the
 * message of Google's error envelope. A 404 ends the CLI with exit code 3.
 */
export class RemoteError extends Error {
  readonly status: number;
  readonly reason: string;

  constructor(status: number, reason: string, message: string) {
    super(message);
    this.name = 'RemoteError';
    this.status = status;
    this.reason = reason;
  }
}
