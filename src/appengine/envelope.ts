import { decodeMessage, encodeMessage, has, messageType, type Message } from './protocol.js';

const REQUEST = messageType('Request');
const RESPONSE = messageType('Response');

/** One call as the `remote_api` envelope carries it. */
export interface RpcCall {
  readonly service: string;
  readonly method: string;
  /** The service's request message, still encoded. */
  readonly request: Uint8Array;
  /** The SDK's request id (the API ticket of the app's request), when it sent one. */
  readonly requestId: string | null;
}

/** Decodes the envelope; null when the bytes are not one (the caller answers PARSE_ERROR). */
export function decodeEnvelope(body: Uint8Array): RpcCall | null {
  let message: Message;
  try {
    message = decodeMessage(REQUEST, body);
  } catch {
    return null;
  }
  if (!has(message, 'service_name') || !has(message, 'method')) return null;
  return {
    service: message['service_name'] as string,
    method: message['method'] as string,
    request: has(message, 'request') ? (message['request'] as Uint8Array) : new Uint8Array(0),
    requestId: has(message, 'request_id') ? (message['request_id'] as string) : null,
  };
}

/** The answer of one call: the response message, or an error of the service or of the call. */
export type RpcAnswer =
  | { readonly kind: 'response'; readonly response: Uint8Array }
  | { readonly kind: 'application_error'; readonly code: number; readonly detail: string }
  | { readonly kind: 'rpc_error'; readonly code: number; readonly detail: string };

/** Encodes the `remote_api` Response envelope. */
export function encodeAnswer(answer: RpcAnswer): Uint8Array {
  switch (answer.kind) {
    case 'response':
      return encodeMessage(RESPONSE, { response: answer.response });
    case 'application_error':
      return encodeMessage(RESPONSE, { application_error: { code: answer.code, detail: answer.detail } });
    case 'rpc_error':
      return encodeMessage(RESPONSE, { rpc_error: { code: answer.code, detail: answer.detail } });
  }
}

/** Reads a Response envelope (the tests' and the torture's client side). */
export function decodeAnswer(body: Uint8Array): RpcAnswer {
  const message = decodeMessage(RESPONSE, body);
  if (has(message, 'application_error')) {
    const error = message['application_error'] as Message;
    return { kind: 'application_error', code: Number(error['code'] ?? 0), detail: String(error['detail'] ?? '') };
  }
  if (has(message, 'rpc_error')) {
    const error = message['rpc_error'] as Message;
    return { kind: 'rpc_error', code: Number(error['code'] ?? 0), detail: String(error['detail'] ?? '') };
  }
  return { kind: 'response', response: (message['response'] as Uint8Array | undefined) ?? new Uint8Array(0) };
}

/** Encodes a Request envelope (the tests' and the torture's client side). */
export function encodeEnvelope(call: Omit<RpcCall, 'requestId'> & { readonly requestId?: string }): Uint8Array {
  return encodeMessage(REQUEST, {
    service_name: call.service,
    method: call.method,
    request: call.request,
    ...(call.requestId === undefined ? {} : { request_id: call.requestId }),
  });
}
