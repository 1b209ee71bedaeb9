/**
 * The logging seam. A subset of pino's API (an object of fields, then a
 * message), so a pino logger fits as it is and tests can pass a capturing
 * one. Core and store take it as a dependency: there is no module-level
 * logger anywhere in src/.
 */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  /** A logger that adds these fields to every line. */
  child(bindings: Record<string, unknown>): Logger;
}

/** A logger that drops everything: the default where none is given. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};
