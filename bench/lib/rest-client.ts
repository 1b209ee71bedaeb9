import { connect, type Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** An HTTP answer as the benchmark needs it. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: Buffer;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/**
 * One keep-alive HTTP/1.1 connection, one request at a time, written
 * directly on a socket: the load generator shares the benchmark machine's
 * cores with the server, so its cost per request must stay small (node:http
 * or fetch cost several times more per request than the server's trivial
 * route). It understands what the server sends: Content-Length or chunked
 * bodies, gzip when asked for.
 */
export class KeepAliveConnection {
  readonly #socket: Socket;
  readonly #host: string;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: { resolve: (answer: HttpAnswer) => void; reject: (error: Error) => void } | null = null;

  private constructor(socket: Socket, host: string) {
    this.#socket = socket;
    this.#host = host;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#tryAnswer();
    });
    const fail = (error: Error) => {
      const waiting = this.#waiting;
      this.#waiting = null;
      waiting?.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
  }

  static open(url: string): Promise<KeepAliveConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) }, () =>
        resolve(new KeepAliveConnection(socket, `${hostname}:${port}`)),
      );
      socket.once('error', reject);
    });
  }

  /** Sends a request; `headers` are extra header lines, each ending in CRLF. */
  request(method: string, path: string, headers = '', body?: Buffer | string): Promise<HttpAnswer> {
    if (this.#waiting) return Promise.reject(new Error('one request at a time'));
    const length = body === undefined ? 0 : Buffer.byteLength(body);
    const head = `${method} ${path} HTTP/1.1\r\nHost: ${this.#host}\r\n${headers}${length > 0 || method === 'POST' ? `Content-Length: ${length}\r\n` : ''}\r\n`;
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      if (body === undefined || length === 0) this.#socket.write(head);
      else if (typeof body === 'string') this.#socket.write(head + body);
      else this.#socket.write(Buffer.concat([Buffer.from(head), body]));
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #tryAnswer(): void {
    const waiting = this.#waiting;
    if (!waiting) return;
    const buffer = this.#buffer;
    const headEnd = buffer.indexOf(CRLFCRLF);
    if (headEnd < 0) return;
    const head = buffer.toString('latin1', 0, headEnd);
    const status = Number(head.slice(9, 12));
    const lower = head.toLowerCase();
    const gzip = lower.includes('\r\ncontent-encoding: gzip');
    const start = headEnd + 4;
    let body: Buffer;
    let end: number;
    const lengthAt = lower.indexOf('\r\ncontent-length:');
    if (lengthAt >= 0) {
      const length = Number.parseInt(lower.slice(lengthAt + 17, lengthAt + 40), 10);
      end = start + length;
      if (buffer.length < end) return;
      body = buffer.subarray(start, end);
    } else if (lower.includes('\r\ntransfer-encoding: chunked')) {
      const chunks: Buffer[] = [];
      let at = start;
      for (;;) {
        const lineEnd = buffer.indexOf('\r\n', at);
        if (lineEnd < 0) return;
        const size = Number.parseInt(buffer.toString('latin1', at, lineEnd), 16);
        if (buffer.length < lineEnd + 2 + size + 2) return;
        if (size === 0) {
          end = lineEnd + 4;
          break;
        }
        chunks.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(chunks);
    } else {
      body = Buffer.alloc(0);
      end = start;
    }
    this.#buffer = buffer.length === end ? Buffer.alloc(0) : buffer.subarray(end);
    this.#waiting = null;
    waiting.resolve({ status, body: gzip ? gunzipSync(body) : body });
  }
}
