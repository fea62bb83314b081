import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockServer, type MockConfigInput, type MockServer } from '../../../src/mock/index.js';

/** A request as the proxy received it. */
export interface SeenRequest {
  method: string;
  /** Path and query. */
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A response, the mock's or the proxy's own. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One weakness of a server, as the proxy plays it: `answer` answers a request itself (an unsafe
 * acceptance: tokens for a forged JWT, a code for a tampered request), `rewrite` changes the mock's
 * answer (a header dropped, a metadata field added, a short token). What neither touches is the mock's.
 */
export interface Weakness {
  answer?(req: SeenRequest): Answer | undefined | Promise<Answer | undefined>;
  rewrite?(req: SeenRequest, res: Answer): Answer;
}

export interface WeakenedMock {
  url: string;
  mock: MockServer;
  /** The weakness in force (set per test; none by default). */
  weakness: Weakness;
  close(): Promise<void>;
}

/**
 * The built-in mock behind a small HTTP proxy on 127.0.0.1 port 0 that weakens it one way at a time.
 * The mock announces the proxy's URL as its issuer, so that every request of the audit passes the proxy.
 */
export async function startWeakenedMock(config: MockConfigInput, options: { autoLogin?: string } = {}): Promise<WeakenedMock> {
  let target = '';
  const state: { weakness: Weakness } = { weakness: {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const seen: SeenRequest = { method: req.method ?? 'GET', url: new URL(req.url ?? '/', target), headers: req.headers, body: Buffer.concat(chunks).toString() };
        const own = await state.weakness.answer?.(seen);
        let answer = own ?? (await forward(target, seen));
        if (!own && state.weakness.rewrite) answer = state.weakness.rewrite(seen, answer);
        res.writeHead(answer.status, { ...answer.headers, 'content-length': String(Buffer.byteLength(answer.body)) });
        res.end(answer.body);
      })().catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mock = await createMockServer(config, { issuerUrl: url, ...(options.autoLogin !== undefined && { autoLogin: options.autoLogin }) });
  target = `http://127.0.0.1:${mock.port}`;
  return {
    url,
    mock,
    get weakness() {
      return state.weakness;
    },
    set weakness(w: Weakness) {
      state.weakness = w;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await mock.close();
    },
  };
}

function forward(target: string, seen: SeenRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const to = new URL(seen.url.pathname + seen.url.search, target);
    const headers = { ...seen.headers, host: to.host };
    delete headers['content-length'];
    const req = request(to, { method: seen.method, headers: { ...headers, 'content-length': String(Buffer.byteLength(seen.body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) {
          if (v === undefined || k === 'content-length' || k === 'transfer-encoding' || k === 'connection' || k === 'keep-alive') continue;
          out[k] = Array.isArray(v) ? v.join(', ') : v;
        }
        resolve({ status: res.statusCode ?? 502, headers: out, body: Buffer.concat(chunks).toString() });
      });
    });
    req.on('error', reject);
    req.end(seen.body);
  });
}

/** A token response the weakened server issues (a fake, but what a client would take for tokens). */
export function tokens(extra: Record<string, unknown> = {}): Answer {
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify({ access_token: `weak-${Math.random().toString(36).slice(2)}`, token_type: 'Bearer', expires_in: 300, ...extra }),
  };
}

/** The redirect with a code that the weakened server sends for an authorization request it should refuse. */
export function codeRedirect(req: SeenRequest, redirectUri = 'http://127.0.0.1/callback'): Answer {
  const target = new URL(req.url.searchParams.get('redirect_uri') ?? redirectUri);
  target.searchParams.set('code', 'weak-code');
  const state = req.url.searchParams.get('state');
  if (state !== null) target.searchParams.set('state', state);
  return { status: 302, headers: { location: target.href }, body: '' };
}

/** The form of a POST body. */
export const form = (req: SeenRequest) => new URLSearchParams(req.body);

/** A weakness that changes the JSON answers of the paths `match` accepts (2xx only). */
export function rewriteJson(match: (req: SeenRequest) => boolean, change: (json: Record<string, unknown>, req: SeenRequest) => void): Weakness {
  return {
    rewrite: (req, res) => {
      if (!match(req) || res.status < 200 || res.status >= 300) return res;
      const json = JSON.parse(res.body) as Record<string, unknown>;
      change(json, req);
      return { ...res, body: JSON.stringify(json) };
    },
  };
}

/** A JWT with its header or claims changed (the signature kept, so no longer valid: for probes that only read). */
export function editJwt(jwt: string, change: (header: Record<string, unknown>, claims: Record<string, unknown>) => void): string {
  const [h = '', c = '', s = ''] = jwt.split('.');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as Record<string, unknown>;
  change(header, claims);
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${enc(header)}.${enc(claims)}.${s}`;
}
