/**
 * The clock of the rules that read Node's time rather than the database's:
 * the hold of a generated name (its time is written into the name by this
 * process's clock) and the long-poll's deadline. Milliseconds since the
 * epoch. Tests pass their own to step over a boundary without waiting.
 */
export type Clock = () => number;

/** The real clock. */
export const systemClock: Clock = () => Date.now();
