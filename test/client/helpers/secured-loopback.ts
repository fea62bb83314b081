import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { makeSelfSigned } from '../../helpers/certificates.js';

/** One request as the loopback server saw it, with the client certificate it presented (SHA-256 fingerprint). */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  form: URLSearchParams;
  clientCertificate?: string | undefined;
}

export type Handler = (req: SeenRequest, res: ServerResponse, base: string) => void;

export interface LoopbackServer {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A small recording server on 127.0.0.1 for the client's second-round tests: authorize redirects at
 * once with a code, every other path goes to `handler`. With `tls` it is HTTPS and asks for (but does
 * not verify) a client certificate, recording its fingerprint.
 */
export async function startLoopbackServer(handler: Handler, tls?: { cert: string; key: string }): Promise<LoopbackServer> {
  const seen: SeenRequest[] = [];
  let base = '';
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', base);
      const peer = tls ? (req.socket as TLSSocket).getPeerCertificate() : undefined;
      const request: SeenRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        headers: req.headers,
        form: req.method === 'GET' ? url.searchParams : new URLSearchParams(Buffer.concat(chunks).toString()),
        clientCertificate: peer?.raw ? new X509Certificate(peer.raw).fingerprint256 : undefined,
      };
      seen.push(request);
      if (url.pathname === '/authorize') {
        const target = new URL(url.searchParams.get('redirect_uri') ?? 'http://127.0.0.1/callback');
        target.searchParams.set('code', `code-${seen.length}`);
        target.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: target.href }).end();
        return;
      }
      handler(request, res, base);
    });
  };
  const server: Server = tls ? createHttpsServer({ ...tls, requestCert: true, rejectUnauthorized: false }, listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}

/** Self-signed certificates made with openssl for one test file: the server's and the client's. */
export interface TestCertificates {
  dir: string;
  server: { cert: string; key: string; certFile: string; keyFile: string };
  clientCertFile: string;
  clientKeyFile: string;
  /** The SHA-256 fingerprint as X509Certificate shows it. */
  clientFingerprint: string;
  remove(): void;
}

export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'oauthctl-mtls-'));
  const make = (name: string, cn: string) => makeSelfSigned(dir, name, { subject: `/CN=${cn}`, days: 2 });
  const server = make('server', '127.0.0.1');
  const client = make('client', 'oauthctl-test-client');
  return {
    dir,
    server: { cert: readFileSync(server.certFile, 'utf8'), key: readFileSync(server.keyFile, 'utf8'), ...server },
    clientCertFile: client.certFile,
    clientKeyFile: client.keyFile,
    clientFingerprint: new X509Certificate(readFileSync(client.certFile)).fingerprint256,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
