/**
 * Combines concurrent calls into one statement, group-commit style: calls for
 * a key run at once, alone, while fewer than `maxInFlight` statements of that
 * key are running; calls that arrive when that many run wait and then go
 * together in the next statement. A lone caller pays no extra latency, the
 * database keeps up to `maxInFlight` statements of a key working in parallel,
 * and under heavier load N callers cost one round trip and one commit instead
 * of N (graphile-worker batches completions the same way).
 */
export class StatementGroup<Request, Result> {
  readonly #run: (key: string, requests: readonly Request[]) => Promise<readonly Result[]>;
  readonly #fits: (requests: readonly Request[], next: Request) => boolean;
  readonly #running = new Map<string, number>();
  readonly #maxInFlight: number;
  readonly #waiting = new Map<string, Array<Pending<Request, Result>>>();

  /**
   * @param run executes one combined statement; resolves to one result per request, in order.
   * @param fits whether `next` may join `requests` in one statement (size caps).
   * @param maxInFlight statements of one key that may run at the same time.
   */
  constructor(
    run: (key: string, requests: readonly Request[]) => Promise<readonly Result[]>,
    fits: (requests: readonly Request[], next: Request) => boolean = () => true,
    maxInFlight = 2,
  ) {
    this.#run = run;
    this.#fits = fits;
    this.#maxInFlight = maxInFlight;
  }

  submit(key: string, request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const pending = { request, resolve, reject };
      if ((this.#running.get(key) ?? 0) < this.#maxInFlight) {
        this.#start(key, [pending]);
        return;
      }
      const queue = this.#waiting.get(key) ?? [];
      queue.push(pending);
      this.#waiting.set(key, queue);
    });
  }

  #start(key: string, batch: Array<Pending<Request, Result>>): void {
    this.#running.set(key, (this.#running.get(key) ?? 0) + 1);
    const requests = batch.map((p) => p.request);
    this.#run(key, requests)
      .then(
        (results) => batch.forEach((p, i) => p.resolve(results[i] as Result)),
        (error: unknown) => batch.forEach((p) => p.reject(error)),
      )
      .finally(() => this.#next(key));
  }

  #next(key: string): void {
    const running = (this.#running.get(key) ?? 1) - 1;
    if (running === 0) this.#running.delete(key);
    else this.#running.set(key, running);
    const queue = this.#waiting.get(key);
    if (!queue || queue.length === 0) {
      this.#waiting.delete(key);
      return;
    }
    const batch: Array<Pending<Request, Result>> = [];
    while (
      queue.length > 0 &&
      (batch.length === 0 ||
        this.#fits(
          batch.map((p) => p.request),
          queue[0]!.request,
        ))
    ) {
      batch.push(queue.shift()!);
    }
    if (queue.length === 0) this.#waiting.delete(key);
    this.#start(key, batch);
  }
}

interface Pending<Request, Result> {
  readonly request: Request;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
}
