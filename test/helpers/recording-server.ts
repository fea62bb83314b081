import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';

/** One request as the recording server saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  form: Record<string, string>;
}

export interface AuthorizeBehaviour {
  /** approve (default): redirect with a code; error: redirect with error fields; none: 200 page, no redirect. */
  outcome?: 'approve' | 'error' | 'none';
  /** Replace the state echoed back (state mismatch tests). */
  state?: string | null;
  /** Add iss (RFC 9207). */
  iss?: string;
  error?: { error: string; error_description?: string; error_uri?: string };
  /** Where the parameters go; the listener must catch all three. */
  responseMode?: 'query' | 'fragment' | 'form_post';
}

export interface TokenBehaviour {
  status?: number;
  /** A JSON value (sent as JSON) or a raw string body. */
  body?: unknown;
  contentType?: string;
}

export interface RecordingServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Requests to a path. */
  to(path: string): RecordedRequest[];
  authorize: AuthorizeBehaviour;
  token: TokenBehaviour;
  /** Documents served at well-known paths, by path. */
  documents: Map<string, { status?: number; body: unknown }>;
  /** Codes issued, with what the authorization request carried. */
  codes: Map<string, Record<string, string>>;
  /** Forget requests and behaviour (between tests). */
  reset(): void;
  close(): Promise<void>;
}

/**
 * A small authorization server for the client's tests: it records every request and answers like a
 * server would (authorize redirects with a code, token answers JSON), with behaviour tests can change.
 */
export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const codes = new Map<string, Record<string, string>>();
  const documents = new Map<string, { status?: number; body: unknown }>();
  const state: RecordingServer = {
    url: '',
    port: 0,
    requests,
    to: (path) => requests.filter((r) => r.path === path),
    authorize: {},
    token: {},
    documents,
    codes,
    reset() {
      requests.length = 0;
      codes.clear();
      documents.clear();
      state.authorize = {};
      state.token = {};
    },
    close: async () => undefined,
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', state.url);
    const body = await readBody(req);
    const form = /x-www-form-urlencoded/.test(String(req.headers['content-type'] ?? '')) ? Object.fromEntries(new URLSearchParams(body)) : {};
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body, form };
    requests.push(recorded);

    const doc = documents.get(url.pathname);
    if (doc) {
      sendJson(res, doc.status ?? 200, doc.body);
      return;
    }
    if (url.pathname === '/authorize' && req.method === 'GET') {
      authorize(recorded, res);
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      token(recorded, res);
      return;
    }
    if (url.pathname === '/api' && req.method === 'GET') {
      const auth = String(req.headers.authorization ?? '');
      if (!auth.startsWith('Bearer at-')) {
        res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"', 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
        return;
      }
      sendJson(res, 200, { ok: true });
      return;
    }
    res.writeHead(404).end('not found');
  }

  function authorize(req: RecordedRequest, res: ServerResponse): void {
    const b = state.authorize;
    const q = req.query;
    if (b.outcome === 'none') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>nothing here</p>');
      return;
    }
    const params: Record<string, string> = {};
    if (b.outcome === 'error') Object.assign(params, b.error ?? { error: 'access_denied', error_description: 'The user said no' });
    else {
      const code = randomBytes(12).toString('base64url');
      codes.set(code, q);
      params.code = code;
    }
    const echoed = b.state === undefined ? q.state : b.state;
    if (echoed !== null && echoed !== undefined) params.state = echoed;
    if (b.iss !== undefined) params.iss = b.iss;
    const target = new URL(q.redirect_uri ?? 'http://127.0.0.1/none');
    const mode = b.responseMode ?? 'query';
    if (mode === 'form_post') {
      const inputs = Object.entries(params)
        .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
        .join('');
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<form method="post" action="${target.href}">${inputs}</form>`);
      return;
    }
    if (mode === 'fragment') target.hash = new URLSearchParams(params).toString();
    else for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
    res.writeHead(302, { location: target.href }).end();
  }

  function token(req: RecordedRequest, res: ServerResponse): void {
    const t = state.token;
    if (t.body !== undefined || t.status !== undefined) {
      const status = t.status ?? 200;
      if (typeof t.body === 'string') res.writeHead(status, { 'content-type': t.contentType ?? 'text/plain' }).end(t.body);
      else sendJson(res, status, t.body ?? {});
      return;
    }
    const f = req.form;
    if (f.grant_type === 'refresh_token') {
      sendJson(res, 200, { access_token: `at-${randomBytes(8).toString('hex')}`, token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-new' });
      return;
    }
    const request = f.code ? codes.get(f.code) : undefined;
    if (!request) {
      sendJson(res, 400, { error: 'invalid_grant', error_description: 'unknown code' });
      return;
    }
    codes.delete(f.code as string);
    if (request.code_challenge) {
      const verifier = f.code_verifier ?? '';
      const challenge = request.code_challenge_method === 'plain' ? verifier : createHash('sha256').update(verifier).digest('base64url');
      if (challenge !== request.code_challenge) {
        sendJson(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
        return;
      }
    }
    if (f.redirect_uri !== request.redirect_uri) {
      sendJson(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri does not match' });
      return;
    }
    sendJson(res, 200, {
      access_token: `at-${randomBytes(8).toString('hex')}`,
      token_type: 'Bearer',
      expires_in: 3600,
      scope: request.scope ?? '',
      ...(String(request.scope ?? '')
        .split(' ')
        .includes('offline_access')
        ? { refresh_token: `rt-${randomBytes(8).toString('hex')}` }
        : {}),
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return state;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
