import { createHash } from 'node:crypto';

/**
 * Answers to adds, kept a short while by the bytes of their envelope. The
 * SDK re-sends a POST whose answer did not come back in time (urllib3's
 * retry), byte for byte: its tasks carry their ETA to the microsecond and
 * its request id, so an identical envelope within the window is that
 * re-send, and gets the first answer (the same chosen names) instead of
 * adding the unnamed tasks twice. A re-send that arrives while the first is
 * still running waits for it. What remains (docs/app-engine.md): a re-send
 * to another process, or after the window, adds again.
 */
export class ReplayWindow {
  readonly #windowMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { readonly expires: number; readonly answer: Promise<Uint8Array | null> }>();

  constructor(options: { windowMs: number; maxEntries: number; now?: () => number }) {
    this.#windowMs = options.windowMs;
    this.#maxEntries = options.maxEntries;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The answer of `envelope`: the one given to the same bytes within the
   * window, else `run()`'s. `run` resolves to null for an answer that is
   * not to be replayed (a failure: a re-send should try again).
   */
  async answer(envelope: Uint8Array, run: () => Promise<Uint8Array | null>): Promise<Uint8Array | null> {
    const key = createHash('sha256').update(envelope).digest('base64');
    const now = this.#now();
    const known = this.#entries.get(key);
    if (known !== undefined && known.expires > now) {
      const earlier = await known.answer;
      if (earlier !== null) return earlier;
    }
    this.#prune(now);
    const answer = run();
    this.#entries.set(key, { expires: now + this.#windowMs, answer: answer.catch(() => null) });
    const result = await answer;
    if (result === null) this.#entries.delete(key);
    return result;
  }

  /** Drops expired entries; past the cap, the oldest (Map order is insertion order). */
  #prune(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (entry.expires > now && this.#entries.size < this.#maxEntries) break;
      this.#entries.delete(key);
    }
  }
}
