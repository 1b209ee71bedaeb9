import type { Logger } from '../core/logger.js';

/**
 * A Logger that hands the messages of info, warning and error lines to a
 * function, as text (`warn: message`), for callers of startServer that want
 * readable lines and no JSON (embedding, tests). Fields are left out, so
 * nothing but the message ever reaches it.
 */
export function lineLogger(write: (line: string) => void): Logger {
  const logger: Logger = {
    debug() {},
    info(_fields, message) {
      if (message !== undefined) write(message);
    },
    warn(_fields, message) {
      if (message !== undefined) write(`warning: ${message}`);
    },
    error(_fields, message) {
      if (message !== undefined) write(`error: ${message}`);
    },
    child: () => logger,
  };
  return logger;
}
