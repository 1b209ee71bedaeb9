import { pino, stdSerializers, type DestinationStream } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { Logger } from '../core/logger.js';
import type { LogLevel } from '../config/service-settings.js';

/**
 * Most bytes of log lines waiting for stdout. A reader that stops reading
 * (a stuck log collector) would otherwise grow the server's memory without
 * end; past this, lines are dropped rather than the server stalled.
 */
const MAX_PENDING_LOG_BYTES = 16 * 1024 * 1024;

/** Least time between two stderr reports of dropped lines. */
const DROP_REPORT_MS = 10_000;

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
 * holds a logger of its own. JSON lines are written asynchronously: a line
 * per request written with its own `write(2)` was a tenth of a single-task
 * REST request's server CPU (docs/performance.md), and lines logged while a
 * write is in flight go out together in the next one. Nothing is lost at
 * exit: pino writes what is pending synchronously on the process's `exit`
 * (a normal end, `process.exit`, a crash), so the last lines ("stopped", a
 * fatal start error) are still out; a write still in flight then may land
 * after them, so the last lines are not always last. The pretty lines, for
 * a terminal, stay synchronous.
 *
 * Defence in depth: whatever a caller passes, fields that could carry a
 * secret or a payload are censored.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const destination =
    options.destination ??
    (options.pretty
      ? PinoPretty({
          destination: 1,
          sync: true,
          colorize: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
        })
      : jsonDestination());
  return pino(
    {
      level: options.level,
      base: { pid: process.pid },
      serializers: { err: stdSerializers.errWithCause },
      redact: {
        paths: [
          'authorization',
          'token',
          'password',
          'apiKey',
          'payload',
          'payloadBase64',
          '*.authorization',
          '*.token',
          '*.password',
          '*.payload',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * stdout, written asynchronously with at most MAX_PENDING_LOG_BYTES waiting.
 * Dropped lines are not silent: stderr says how many went, at most once
 * every DROP_REPORT_MS, so a stuck reader cannot flood it either.
 */
function jsonDestination(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, maxLength: MAX_PENDING_LOG_BYTES });
  let dropped = 0;
  let reportedAt = -Infinity;
  stream.on('drop', () => {
    dropped++;
    const now = performance.now();
    if (now - reportedAt < DROP_REPORT_MS) return;
    reportedAt = now;
    process.stderr.write(
      `taskqueue: stdout is not read fast enough (${MAX_PENDING_LOG_BYTES} bytes waiting); ${dropped} log line(s) dropped\n`,
    );
    dropped = 0;
  });
  return stream;
}
