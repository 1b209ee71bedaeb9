import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/** A signing key of the fake identity provider. */
export interface FakeKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256';
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

/** How the JWKS endpoint behaves. */
export type JwksMode = 'ok' | 'down' | 'junk' | 'huge' | 'hang';

/** An introspection answer: a JSON body, or a misbehaviour. */
export type IntrospectionAnswer = Record<string, unknown> | 'hang' | 'error';

/**
 * An identity provider on 127.0.0.1 with a random port: a JWKS endpoint
 * (`/jwks`) and an RFC 7662 introspection endpoint (`/introspect`). Tests
 * mint tokens with its keys, count its requests, and make it misbehave.
 * Nothing leaves the machine.
 */
export class FakeIdentityProvider {
  readonly #server: Server;
  readonly issuer: string;
  /** Keys published in the JWKS. */
  published: FakeKey[] = [];
  jwksMode: JwksMode = 'ok';
  jwksFetches = 0;
  introspectionRequests: Array<{ authorization: string | undefined; body: URLSearchParams }> = [];
  /** Answer per token; unknown tokens get `{ active: false }`. */
  readonly introspection = new Map<string, IntrospectionAnswer>();

  private constructor(server: Server) {
    this.#server = server;
    this.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  static async start(): Promise<FakeIdentityProvider> {
    const holder: { idp?: FakeIdentityProvider } = {};
    const server = createServer((req, res) => void holder.idp?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.idp = new FakeIdentityProvider(server);
    return holder.idp;
  }

  get jwksUrl(): string {
    return `${this.issuer}/jwks`;
  }

  get introspectionUrl(): string {
    return `${this.issuer}/introspect`;
  }

  /** Creates a key; publishes it unless told not to. */
  async newKey(alg: 'RS256' | 'ES256' = 'RS256', options: { publish?: boolean; kid?: string } = {}): Promise<FakeKey> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const kid = options.kid ?? `${alg.toLowerCase()}-${Math.random().toString(36).slice(2, 10)}`;
    const key: FakeKey = { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
    if (options.publish ?? true) this.published.push(key);
    return key;
  }

  /** A signed JWT; defaults make a valid access token for `audience` with the full scope. */
  async sign(
    key: FakeKey,
    claims: JWTPayload & Record<string, unknown>,
    header: Record<string, unknown> = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: this.issuer, iat: now, exp: now + 600, ...claims })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })
      .sign(key.privateKey);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url === '/jwks') return this.serveJwks(res);
    if (req.url === '/introspect' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      this.introspectionRequests.push({ authorization: req.headers.authorization, body });
      const answer = this.introspection.get(body.get('token') ?? '') ?? { active: false };
      if (answer === 'hang') return;
      if (answer === 'error') return void res.writeHead(500).end('oops');
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    }
    res.writeHead(404).end();
  }

  private serveJwks(res: ServerResponse): void {
    this.jwksFetches++;
    switch (this.jwksMode) {
      case 'ok':
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ keys: this.published.map((key) => key.publicJwk) }));
      case 'down':
        return void res.writeHead(503).end();
      case 'junk':
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": "nope"');
      case 'huge':
        // No Content-Length: the cap must count the stream.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"keys":[');
        for (let i = 0; i < 64; i++) res.write(`${'"x",'.repeat(2048)}`);
        return void res.end('"x"]}');
      case 'hang':
        return;
    }
  }
}
