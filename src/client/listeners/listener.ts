import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, type Listening } from '../../http/server.js';
import { randomBytes } from 'node:crypto';
import { UsageError } from '../../errors.js';
import { constantTimeEqual } from '../../oauth/pkce.js';
import { hostOfHeader, isLoopbackHost, loopbackBindAddress } from '../../oauth/loopback.js';
import { harClock, LISTENER_HEADER, type HarRecorder } from '../../output/har.js';
import { redirectPage, fragmentRelayPage, type RedirectOutcome } from './listener-pages.js';

/** What the first redirect carried and how: query string, URL fragment (posted back by a page) or form_post body. */
export interface RedirectCapture {
  via: 'query' | 'fragment' | 'form_post';
  params: Record<string, string>;
  /** The redirect URL as the browser asked for it (a fragment is appended after '#'). */
  url: string;
  method: 'GET' | 'POST';
  /** Parameters that came more than once (RFC 6749 section 3.1 forbids it); `params` keeps the first. */
  repeated?: string[];
}

export interface RedirectListenerOptions {
  /** A loopback http URI: 127.0.0.1 (default), [::1] or localhost (bound to 127.0.0.1); no port = a free port. */
  redirectUri: URL | string;
  /** Serve this path instead of the redirect URI's. */
  path?: string | undefined;
  /** Bind this loopback address instead of the one the redirect URI names. */
  host?: string | undefined;
  /** Request bodies larger than this are refused with 413; default 64 KiB. */
  maxBodyBytes?: number | undefined;
  /** The state the authorization request carried: the browser page then tells a mismatch as a failure. */
  expectedState?: string | undefined;
  /**
   * Capture any request with parameters (`oauthctl listen`). Otherwise a request that carries none of
   * code, error and state is answered 400 and ignored, so a local process that guesses the port cannot
   * end a login.
   */
  acceptAnyParameters?: boolean | undefined;
  /** With --trace: the redirect as the listener saw it (the only record of it with a system browser). */
  har?: HarRecorder | undefined;
  /** The return of RP-initiated logout (`logout --end-session`): the state is expected, no code; the page says signed out. */
  postLogout?: boolean | undefined;
}

/** Where a redirect arrives: the listener, or D's paste reader for --manual. */
export interface RedirectReceiver {
  /** The redirect URI to send in the authorization request (with the real port for a listener). */
  redirectUri: string;
  /** The redirect arrives as a URL the user pastes (--manual): no listener, nothing to count down. */
  pasted?: boolean;
  waitForRedirect(signal?: AbortSignal): Promise<RedirectCapture>;
  close(): Promise<void>;
}

export interface RedirectListener extends RedirectReceiver {
  /** The address the listener is bound to, e.g. http://127.0.0.1:53124 */
  url: string;
  host: string;
  port: number;
  /** The path it serves; acceptPath changes it. */
  readonly path: string;
  /** Serves this path from now on instead (--step: the person moved redirect_uri on this port). */
  acceptPath(path: string): void;
}

/** Fragment posts carry this header; a cross-site form cannot set it. */
export const FRAGMENT_HEADER = 'x-oauthctl-fragment';

/**
 * The port a URI names, as written: `http://127.0.0.1:80/cb` names 80, which the URL parser drops as
 * the scheme's default. Undefined when the URI names none (then the listener takes a free one).
 */
export function portAsWritten(uri: string): number | undefined {
  const port = /^[a-z][a-z\d+.-]*:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):(\d+)(?:[/?#]|$)/i.exec(uri)?.[1];
  return port === undefined ? undefined : Number(port);
}

/**
 * Starts the loopback redirect listener (RFC 8252 section 7.3). It binds only the loopback address the
 * redirect URI names (never 0.0.0.0), serves only the redirect path, captures the first redirect and
 * answers the browser with a small page, then closes.
 */
export async function startRedirectListener(options: RedirectListenerOptions): Promise<RedirectListener> {
  const uri = new URL(String(options.redirectUri));
  if (uri.protocol !== 'http:') {
    throw new UsageError(`the loopback listener needs an http redirect URI, got ${JSON.stringify(uri.href)}`, 'use e.g. http://127.0.0.1/callback (RFC 8252 section 7.3)');
  }
  const host = loopbackBindAddress(options.host ?? uri.hostname);
  if (host === undefined) {
    throw new UsageError(
      `the redirect URI's host ${JSON.stringify(options.host ?? uri.hostname)} is not a loopback address, so no listener can receive it`,
      'use http://127.0.0.1/callback, http://[::1]/callback or http://localhost/callback',
    );
  }
  let path = options.path ?? uri.pathname;
  const writtenPort = portAsWritten(String(options.redirectUri));
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;

  let captured: RedirectCapture | undefined;
  const waiters: ((c: RedirectCapture) => void)[] = [];
  const deliver = (capture: RedirectCapture) => {
    if (captured) return;
    captured = capture;
    for (const w of waiters.splice(0)) w(capture);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const startedAt = harClock();
    res.setHeader(LISTENER_HEADER, '1');
    const requestUrl = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    // Refuse other host names (DNS rebinding) and other paths (favicon, probes): they never end the flow.
    if (!isLoopbackHostHeader(req.headers.host) || requestUrl.pathname !== path || captured) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end("Not found: oauthctl's redirect listener does not wait here\n");
      return;
    }
    const redirectUrl = `${uri.protocol}//${req.headers.host}${req.url ?? '/'}`;
    if (req.method === 'GET') {
      if (requestUrl.search.length > 1) {
        finish(req, res, captureOf('query', requestUrl.searchParams, redirectUrl, 'GET'), startedAt);
        return;
      }
      // No query: the parameters may be in the fragment, which only the browser sees (response_mode=fragment).
      const nonce = randomBytes(16).toString('base64');
      sendHtml(res, 200, fragmentRelayPage(path, FRAGMENT_HEADER, nonce), nonce);
      return;
    }
    if (req.method === 'POST') {
      const type = String(req.headers['content-type'] ?? '');
      if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
        res.writeHead(415, { 'content-type': 'text/plain; charset=utf-8' }).end('Expected application/x-www-form-urlencoded\n');
        return;
      }
      const body = await readLimited(req, maxBodyBytes);
      if (body === undefined) {
        res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('Request body too large\n');
        return;
      }
      const params = new URLSearchParams(body);
      if (req.headers[FRAGMENT_HEADER] === '1') {
        finish(req, res, captureOf('fragment', params, `${redirectUrl}#${body}`, 'GET'), startedAt);
      } else {
        // OAuth 2.0 Form Post Response Mode (response_mode=form_post).
        finish(req, res, captureOf('form_post', params, redirectUrl, 'POST'), startedAt, body);
      }
      return;
    }
    res.writeHead(405, { allow: 'GET, POST', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed\n');
  }

  function finish(req: IncomingMessage, res: ServerResponse, capture: RedirectCapture, startedAt: number, body?: string): void {
    const p = capture.params;
    if (!options.acceptAnyParameters && p.code === undefined && p.error === undefined && p.state === undefined && p.response === undefined) {
      // A probe, not an authorization response (RFC 6749 section 4.1.2, or JARM's response JWT): the flow keeps waiting.
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end('Not an authorization response: no code, error or state\n');
      recordRedirect(req, res, capture, startedAt, body, '');
      return;
    }
    res.once('finish', () => deliver(capture));
    const page = redirectPage(outcomeOf(capture, options.expectedState, options.postLogout === true), options.postLogout === true);
    sendHtml(res, 200, page, undefined, true);
    recordRedirect(req, res, capture, startedAt, body, page);
  }

  function recordRedirect(req: IncomingMessage, res: ServerResponse, capture: RedirectCapture, startedAt: number, body: string | undefined, page: string): void {
    const pairs = (flat: string[]): [string, string][] => flat.flatMap((v, i) => (i % 2 === 0 ? [[v.toLowerCase(), flat[i + 1] ?? ''] as [string, string]] : []));
    options.har?.record({
      actor: 'listener',
      startedAt,
      durationMs: harClock() - startedAt,
      method: req.method ?? 'GET',
      url: capture.url,
      requestHeaders: pairs(req.rawHeaders),
      requestBody: body,
      status: res.statusCode,
      responseHeaders: Object.entries(res.getHeaders()).map(([n, v]): [string, string] => [n, String(v)]),
      responseBody: page,
    });
  }

  let listening: Listening;
  try {
    listening = await listen(onRequest, { host, port: writtenPort ?? 0 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new UsageError(`port ${writtenPort} on ${host} is already in use, so the redirect cannot be received there`, 'pick another port in --redirect-uri, or leave the port out for a free one');
    }
    if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') {
      throw new UsageError(`cannot listen on ${host}: ${(err as Error).message}`, 'this machine may lack that loopback address; try http://127.0.0.1/callback');
    }
    throw err;
  }
  const port = listening.port;
  const actual = new URL(uri.href);
  if (options.path !== undefined) actual.pathname = path;
  // The port is always written out, the scheme's default too: the URI sent is the one registered.
  const redirectUri = `${actual.protocol}//${actual.hostname}:${port}${actual.pathname}${actual.search}`;

  const close = (): Promise<void> => listening.close();

  return {
    redirectUri,
    url: listening.url,
    host,
    port,
    get path() {
      return path;
    },
    acceptPath(next: string) {
      path = next;
    },
    close,
    waitForRedirect(signal?: AbortSignal): Promise<RedirectCapture> {
      return new Promise<RedirectCapture>((resolve, reject) => {
        if (captured) {
          resolve(captured);
          return;
        }
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const onAbort = () => reject(signal?.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push((c) => {
          signal?.removeEventListener('abort', onAbort);
          void close();
          resolve(c);
        });
      });
    },
  };
}

function isLoopbackHostHeader(hostHeader: string | undefined): boolean {
  return hostHeader !== undefined && isLoopbackHost(hostOfHeader(hostHeader));
}

function captureOf(via: RedirectCapture['via'], search: URLSearchParams, url: string, method: RedirectCapture['method']): RedirectCapture {
  const params: Record<string, string> = {};
  const repeated = new Set<string>();
  // The first value is kept; a repeat is recorded, and the flow refuses the redirect (RFC 6749 section 3.1).
  for (const [k, v] of search) {
    if (Object.hasOwn(params, k)) repeated.add(k);
    else params[k] = v;
  }
  return { via, params, url, method, ...(repeated.size > 0 ? { repeated: [...repeated] } : {}) };
}

/** What the browser is told: the flow's own verdict comes later, but a page never says "received" for a redirect the flow will refuse. */
function outcomeOf(capture: RedirectCapture, expectedState: string | undefined, postLogout: boolean): RedirectOutcome {
  const p = capture.params;
  if (capture.repeated) return { ok: false, error: 'invalid_request', description: `repeated parameters: ${capture.repeated.join(', ')}` };
  // A response JWT (JARM) is verified by the flow, after this page: the page says only that it arrived.
  if (p.response !== undefined && p.state === undefined) return { ok: true };
  if (expectedState !== undefined && (p.state === undefined || !constantTimeEqual(p.state, expectedState))) {
    return { ok: false, error: 'state mismatch', description: 'the redirect does not answer the request oauthctl sent; nothing was exchanged' };
  }
  if (p.error) return { ok: false, error: p.error, description: p.error_description };
  return p.code || postLogout ? { ok: true } : { ok: false, error: 'no code in the redirect' };
}

function readLimited(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendHtml(res: ServerResponse, status: number, html: string, scriptNonce?: string, closeConnection = false): void {
  const script = scriptNonce ? `script-src 'nonce-${scriptNonce}'; connect-src 'self'; ` : '';
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'content-security-policy': `default-src 'none'; ${script}style-src 'unsafe-inline'`,
    ...(closeConnection ? { connection: 'close' } : {}),
  };
  // Set one by one (not through writeHead) so that res.getHeaders() has them for --trace's record of the answer.
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.writeHead(status);
  res.end(html);
}
