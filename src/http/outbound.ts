import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { RequestAbort } from './deadline.js';

/** One request; the answer is read whole, up to `maxBytes`. */
export interface OutboundRequest {
  url: string;
  method: string;
  /** A list sends the field once per value. */
  headers: Record<string, string | string[]>;
  body?: string | undefined;
  /** Stops the request at any point, the body included (the whole-request deadline, or the caller's signal). */
  abort: RequestAbort;
  maxBytes: number;
  /** Whether the body of an answer with this status is wanted; when not, it is never read and comes back ''. Default: always. */
  readBody?: (status: number) => boolean;
  /**
   * Asked after each piece of the body (the body so far): true answers with the body so far (a stream
   * whose answer has come). The rest is drained for a short grace: a stream that ends then leaves its
   * connection to be reused; one the server keeps open is closed, never reused (src/http/request.ts; behind a proxy it is closed at once).
   */
  enough?: ((status: number, headers: Record<string, string>, body: Buffer) => boolean) | undefined;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names; repeated fields joined with ", " (set-cookie with "\n"). */
  headers: Record<string, string>;
  body: string;
}

export interface Outbound {
  send(request: OutboundRequest): Promise<OutboundResponse>;
  /** Ends the kept-alive connections. */
  close(): Promise<void>;
}

/** Where a proxy is to be found: HTTPS_PROXY, HTTP_PROXY and NO_PROXY as the command's environment has them ('' for none). */
export interface ProxySettings {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

export interface OutboundOptions {
  /** Skip TLS certificate verification (--insecure). */
  insecure?: boolean | undefined;
  /** Mutual TLS (RFC 8705): the client certificate and its private key, PEM, presented when a server asks. */
  clientCertificate?: { cert: string; key: string } | undefined;
  /** The proxy, read by proxySettings(env); none when both proxies are ''. */
  proxy?: ProxySettings | undefined;
  /** Kept-alive connections, one pool per scheme (default); false for one connection per request. */
  keepAlive?: boolean | undefined;
  /** Resolves a host name to the address connected to, as node:net's `lookup` (an address policy for the mock's calls). */
  lookup?: LookupFunction | undefined;
  /** The whole-request deadline, for undici's own timers behind a proxy. */
  timeoutMs?: number | undefined;
}

export class ResponseTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`response larger than ${maxBytes} bytes`);
  }
}

/** The proxy settings of an environment; lower-case names first, as curl reads them. */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings {
  return { httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? '', httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? '', noProxy: env.no_proxy ?? env.NO_PROXY ?? '' };
}

export function flattenHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    out[key] = Array.isArray(value) ? value.join(key === 'set-cookie' ? '\n' : ', ') : value;
  }
  return out;
}
