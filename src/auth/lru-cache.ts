/**
 * A bounded map whose entries expire. Token checks that cost a network round
 * trip (introspection) are remembered here; the bound keeps a flood of
 * distinct tokens from growing memory without limit: past `maxEntries` the
 * least recently used entry goes. A Map keeps insertion order, so deleting
 * and re-inserting on each hit is all the bookkeeping LRU needs.
 */
export class LruCache<V> {
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  /** `now` returns milliseconds; tests pass a fake clock. */
  constructor(maxEntries: number, now: () => number = Date.now) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1)
      throw new RangeError('maxEntries must be a positive integer');
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  /** The live value under `key`, or undefined (expired entries are dropped on sight). */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= this.#now()) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` for `ttlMs` milliseconds; a non-positive TTL stores nothing. */
  set(key: string, value: V, ttlMs: number): void {
    this.#entries.delete(key);
    if (!(ttlMs > 0)) return;
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlMs });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** Entries held, live or not yet noticed as expired. */
  get size(): number {
    return this.#entries.size;
  }
}
