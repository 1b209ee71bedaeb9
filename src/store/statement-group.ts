/**
 * Combines concurrent calls into one statement, group-commit style: the first
 * call for a key runs at once, alone; calls that arrive while it runs wait
 * and then go together in the next statement. A lone caller pays no extra
 * latency, and under load N callers cost one round trip and one commit
 * instead of N (graphile-worker batches completions the same way).
 */
export class StatementGroup<Request, Result> {
  readonly #run: (key: string, requests: readonly Request[]) => Promise<readonly Result[]>;
  readonly #maxBatch: (requests: readonly Request[], next: Request) => boolean;
  readonly #running = new Set<string>();
  readonly #waiting = new Map<string, Array<Pending<Request, Result>>>();

  /**
   * @param run executes one combined statement; resolves to one result per request, in order.
   * @param fits whether `next` may join `requests` in one statement (size caps).
   */
  constructor(
    run: (key: string, requests: readonly Request[]) => Promise<readonly Result[]>,
    fits: (requests: readonly Request[], next: Request) => boolean = () => true,
  ) {
    this.#run = run;
    this.#maxBatch = fits;
  }

  submit(key: string, request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const pending = { request, resolve, reject };
      if (!this.#running.has(key)) {
        this.#start(key, [pending]);
        return;
      }
      const queue = this.#waiting.get(key) ?? [];
      queue.push(pending);
      this.#waiting.set(key, queue);
    });
  }

  #start(key: string, batch: Array<Pending<Request, Result>>): void {
    this.#running.add(key);
    const requests = batch.map((p) => p.request);
    this.#run(key, requests).then(
      (results) => batch.forEach((p, i) => p.resolve(results[i] as Result)),
      (error: unknown) => batch.forEach((p) => p.reject(error)),
    ).finally(() => this.#next(key));
  }

  #next(key: string): void {
    this.#running.delete(key);
    const queue = this.#waiting.get(key);
    if (!queue || queue.length === 0) {
      this.#waiting.delete(key);
      return;
    }
    const batch: Array<Pending<Request, Result>> = [];
    while (queue.length > 0 && (batch.length === 0 || this.#maxBatch(batch.map((p) => p.request), queue[0]!.request))) {
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
