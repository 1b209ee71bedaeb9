/**
 * The clock of the rules that read Node's time rather than the database's:
 * the hold of a generated name (its time is written into the name by this
 * process's clock) and the long-poll's deadline. Milliseconds since the
 * epoch. Tests pass their own to step over a boundary without waiting.
 */
export type Clock = () => number;

/** The real clock. */
export const systemClock: Clock = () => Date.now();

/**
 * Milliseconds on a clock that never jumps (not since the epoch): for a
 * duration that must not stretch when the wall clock is set back, such as
 * how long a push dispatcher may go on after its last heartbeat.
 */
export const monotonicClock: Clock = () => performance.now();
