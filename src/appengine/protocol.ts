import protobuf from 'protobufjs';
import { REMOTE_API_PROTO } from './remote-api-proto.js';

/** The message types of the protocol, parsed once. */
const root = protobuf.parse(REMOTE_API_PROTO, { keepCase: true }).root;

/** A message type by its name in remote-api-proto.ts. */
export function messageType(name: string): protobuf.Type {
  return root.lookupType(`aeapi.${name}`);
}

/** A decoded message: its fields by name (groups by their lower-camel name: `taskResult`, `header`). */
export type Message = Record<string, unknown>;

/** Decodes `bytes` as `type`; throws on a malformed message (the caller answers PARSE_ERROR). */
export function decodeMessage(type: protobuf.Type, bytes: Uint8Array): Message {
  return type.decode(bytes) as unknown as Message;
}

/** Encodes a plain object as `type`. */
export function encodeMessage(type: protobuf.Type, value: Message): Uint8Array {
  return type.encode(type.fromObject(value)).finish();
}

/** Whether an optional field was on the wire (proto2 presence: defaults live on the prototype). */
export function has(message: Message, field: string): boolean {
  return Object.hasOwn(message, field);
}

/** An int64 field (a Long from the decoder) or an int32 as a number; `fallback` when absent. */
export function int(message: Message, field: string, fallback = 0): number {
  if (!has(message, field)) return fallback;
  const value = message[field];
  if (typeof value === 'number') return value;
  if (value !== null && typeof value === 'object' && 'toNumber' in value) {
    return (value as { toNumber(): number }).toNumber();
  }
  return fallback;
}

/** A double or bool field as is; `fallback` when absent. */
export function scalar<T extends number | boolean>(message: Message, field: string, fallback: T): T {
  return has(message, field) ? (message[field] as T) : fallback;
}

/** A bytes field as UTF-8 text (names, URLs, tags); `fallback` when absent. */
export function text(message: Message, field: string, fallback = ''): string {
  if (!has(message, field)) return fallback;
  return Buffer.from(message[field] as Uint8Array).toString('utf8');
}

/** A bytes field as bytes (empty when absent). */
export function bytes(message: Message, field: string): Buffer {
  const value = message[field];
  return value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : Buffer.alloc(0);
}

/** A repeated field (empty when absent). */
export function list(message: Message, field: string): Message[] {
  const value = message[field];
  return Array.isArray(value) ? (value as Message[]) : [];
}
