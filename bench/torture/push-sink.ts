import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One request the sink received from a dispatching server. */
export interface SinkDelivery {
  readonly queue: string;
  readonly task: string;
  /** X-AppEngine-TaskRetryCount: 0 on the first attempt. */
  readonly retry: number;
  /** performance.now() when the request's headers arrived. */
  readonly at: number;
  readonly body: string;
  /** What the sink answered (set when it answered; null while held). */
  status: number | null;
  /** The connection closed before the answer was written: the server died (kill -9) with it in flight. */
  cut: boolean;
}

/** How the sink answers one request: a status after `delayMs`. */
export interface SinkAnswer {
  readonly status: number;
  readonly delayMs: number;
}

/**
 * The loopback HTTP server the push queues deliver to, run by the harness.
 * It records every request (queue and task from the X-AppEngine headers),
 * answers as the phase decides, and counts requests in flight per queue:
 * a request leaves when its answer is written or its connection is cut.
 */
export class PushSink {
  readonly port: number;
  readonly deliveries: SinkDelivery[] = [];
  readonly #server: Server;
  readonly #inFlight = new Map<string, number>();
  readonly #maxInFlight = new Map<string, number>();
  /** Client ports of the requests held now, with how many each has (keep-alive: one at a time). */
  readonly #heldPorts = new Map<number, number>();
  answer: (delivery: SinkDelivery) => SinkAnswer = () => ({ status: 200, delayMs: 0 });

  private constructor(port: number) {
    this.port = port;
    this.#server = createServer((req, res) => this.#receive(req, res));
    this.#server.keepAliveTimeout = 30_000;
  }

  /** Listens on 127.0.0.1:port (the port the queue config names). */
  static async start(port: number): Promise<PushSink> {
    const sink = new PushSink(port);
    await new Promise<void>((resolve, reject) => {
      sink.#server.once('error', reject);
      sink.#server.listen(port, '127.0.0.1', () => resolve());
    });
    return sink;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The client (server-side) ports of the connections whose request the sink holds now. */
  heldPorts(): number[] {
    return [...this.#heldPorts.keys()];
  }

  /** The most requests of `queue` the sink held at once. */
  maxInFlight(queue: string): number {
    return this.#maxInFlight.get(queue) ?? 0;
  }

  #receive(req: IncomingMessage, res: ServerResponse): void {
    const at = performance.now();
    const queue = String(req.headers['x-appengine-queuename'] ?? '');
    const port = req.socket.remotePort ?? 0;
    this.#heldPorts.set(port, (this.#heldPorts.get(port) ?? 0) + 1);
    const inFlight = (this.#inFlight.get(queue) ?? 0) + 1;
    this.#inFlight.set(queue, inFlight);
    this.#maxInFlight.set(queue, Math.max(this.#maxInFlight.get(queue) ?? 0, inFlight));
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.#inFlight.set(queue, (this.#inFlight.get(queue) ?? 1) - 1);
      const held = (this.#heldPorts.get(port) ?? 1) - 1;
      if (held > 0) this.#heldPorts.set(port, held);
      else this.#heldPorts.delete(port);
    };
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const delivery: SinkDelivery = {
        queue,
        task: String(req.headers['x-appengine-taskname'] ?? ''),
        retry: Number(req.headers['x-appengine-taskretrycount'] ?? -1),
        at,
        body: Buffer.concat(chunks).toString('utf8'),
        status: null,
        cut: false,
      };
      this.deliveries.push(delivery);
      const { status, delayMs } = this.answer(delivery);
      res.on('close', () => {
        if (!res.writableFinished) delivery.cut = true;
        leave();
      });
      const reply = () => {
        if (res.destroyed) return;
        delivery.status = status;
        leave();
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end('ok');
      };
      if (delayMs > 0) setTimeout(reply, delayMs);
      else reply();
    });
    req.on('error', leave);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }
}
