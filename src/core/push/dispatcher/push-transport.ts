/** One HTTP request of a push delivery. */
export interface PushHttpRequest {
  readonly url: string;
  readonly method: string;
  /** Header pairs in order; a name may repeat. */
  readonly headers: readonly (readonly [string, string])[];
  /** Null: no body. */
  readonly body: Buffer | null;
  /** The whole request (connect, send, response headers, capped body read) must end within this. */
  readonly deadlineMs: number;
  /** Aborts the request (a shutdown past its grace). */
  readonly signal?: AbortSignal;
}

/** How a request ended: a status, or no response (`error` says why). */
export interface PushHttpResult {
  readonly status: number | null;
  /** A `Retry-After` header, in seconds; null when absent or unreadable. */
  readonly retryAfterSeconds: number | null;
  /** No response: `timeout`, `connection refused`, ...; null when a response came. */
  readonly error: string | null;
  /** A non-2xx response's first bytes (RESPONSE_EXCERPT_BYTES) as text, for the attempt history; else null or absent. */
  readonly bodyExcerpt?: string | null;
}

/** The HTTP client of push delivery (push/http-delivery.ts): no redirects followed, only the status matters. */
export interface PushTransport {
  send(request: PushHttpRequest): Promise<PushHttpResult>;
  close(): Promise<void>;
}

/** Signs the `Authorization: Bearer` token of a delivery to `audience`; see auth/push-token-signer.ts. */
export type PushTokenSigner = (audience: string) => Promise<string>;

/** Told of each attempt (metrics). */
export interface PushEvents {
  /** An attempt ended: `success` (2xx), `retry` (failed, will be tried again), `dead_letter` (out of retries), `gone` (deleted in flight). */
  attempted(queue: string, outcome: 'success' | 'retry' | 'dead_letter' | 'gone', seconds: number): void;
  /** Requests in flight of a queue in this process changed by `delta`. */
  inFlight(queue: string, delta: number): void;
}

export const noPushEvents: PushEvents = { attempted: () => {}, inFlight: () => {} };
