import { pino, stdSerializers, type DestinationStream } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { Logger } from '../core/logger.js';
import type { LogLevel } from '../config/service-settings.js';

export interface CreateLoggerOptions {
  readonly level: LogLevel;
  /** Human-readable lines instead of JSON (the server passes: stdout is a terminal). */
  readonly pretty: boolean;
  /** Where lines go (default: stdout). Tests pass a capturing stream. */
  readonly destination?: DestinationStream;
}

/**
 * The server's logger: pino, JSON lines on stdout (pretty-printed for a
 * terminal). Created once by the server and handed down; nothing in src/
 * holds a logger of its own. Writes are synchronous so that the last lines
 * ("stopped", a fatal start error) are out before the process exits.
 *
 * Defence in depth: whatever a caller passes, fields that could carry a
 * secret or a payload are censored.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const destination =
    options.destination ??
    (options.pretty
      ? PinoPretty({ destination: 1, sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
      : pino.destination({ dest: 1, sync: true }));
  return pino(
    {
      level: options.level,
      base: { pid: process.pid },
      serializers: { err: stdSerializers.errWithCause },
      redact: {
        paths: ['authorization', 'token', 'password', 'apiKey', 'payload', 'payloadBase64', '*.authorization', '*.token', '*.password', '*.payload'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
