/**
 * One timer for every lease a worker must renew, instead of one per task:
 * it fires at the earliest renewal due and hands `due` every task whose
 * time has come. A task leaves by setting its renewAt to Infinity (a late
 * wake-up finds nothing to do). A scan of the held tasks per wake-up costs
 * less than a timer per task (set at lease, cleared at delete) once a worker
 * holds hundreds: wake-ups come about once per half lease.
 */
export class RenewalSchedule<H extends { renewAt: number }> {
  readonly #held: Iterable<H>;
  readonly #due: (held: H) => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #at = Infinity;

  constructor(held: Iterable<H>, due: (held: H) => void) {
    this.#held = held;
    this.#due = due;
  }

  /** A task's renewAt was set (or moved sooner): make sure the timer fires by then. */
  wake(at: number): void {
    if (at >= this.#at) return;
    clearTimeout(this.#timer);
    this.#at = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, at - Date.now()));
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Infinity;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#at = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const held of this.#held) {
      if (held.renewAt <= now) this.#due(held);
      else if (held.renewAt < next) next = held.renewAt;
    }
    if (next < Infinity) this.wake(next);
  }
}
