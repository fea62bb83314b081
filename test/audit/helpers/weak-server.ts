import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small authorization server for the audit's tests: correct by default, with one switch per
 * weakness, so that every probe has a server on which it must fail. It logs in automatically (no
 * pages): the audit's headless agent simply follows its redirect.
 */
export interface Weaknesses {
  /** The token endpoint always fails: the flow never completes. */
  brokenToken?: boolean;
  /** The state comes back with its spaces turned into '+' (decoded and re-encoded wrongly). */
  mangleState?: boolean;
  /** No iss in the redirect although the metadata announces it. */
  noIss?: boolean;
  wrongIss?: boolean;
  codeReusable?: boolean;
  ignoreRedirectUriAtToken?: boolean;
  ignoreClientAtToken?: boolean;
  /** Public clients may leave out the code challenge. */
  pkceOptional?: boolean;
  ignoreVerifier?: boolean;
  allowDowngrade?: boolean;
  allowPlain?: boolean;
  /** Redirect URIs are compared by prefix, or not at all. */
  redirectUriMatch?: 'prefix' | 'any';
  acceptWrongSecret?: boolean;
  wrongSecretStatus?: number;
  textErrors?: boolean;
  implicit?: boolean;
  noStore?: boolean;
  noRotation?: boolean;
  refreshReuse?: boolean;
  noRefreshTokens?: boolean;
}

export interface WeakServer {
  url: string;
  close(): Promise<void>;
}

interface Code {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  method?: string;
  scope: string;
  used: boolean;
}

const CLIENTS: Record<string, { secret?: string; redirectUris: string[] }> = {
  pub: { redirectUris: ['http://127.0.0.1/callback'] },
  conf: { secret: 'conf-secret', redirectUris: ['http://127.0.0.1/callback'] },
  other: { secret: 'other-secret', redirectUris: ['http://127.0.0.1/callback'] },
};

const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export async function startWeakServer(weak: Weaknesses = {}): Promise<WeakServer> {
  const codes = new Map<string, Code>();
  const refreshTokens = new Map<string, { clientId: string; scope: string; used: boolean }>();
  let issuer = '';

  const json = (res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...(weak.noStore ? {} : { 'cache-control': 'no-store' }), ...extra });
    res.end(JSON.stringify(body));
  };
  const oauthError = (res: ServerResponse, status: number, error: string, extra: Record<string, string> = {}) => {
    if (weak.textErrors) {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(`${error}\n`);
      return;
    }
    json(res, status, { error, error_description: `the request failed: ${error}` }, extra);
  };
  const errorPage = (res: ServerResponse, text: string) => {
    res.writeHead(400, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>Error</title><p class="error">${text}</p>`);
  };

  const redirectAllowed = (clientId: string, uri: string) => {
    const registered = CLIENTS[clientId]?.redirectUris ?? [];
    if (weak.redirectUriMatch === 'any') return true;
    if (weak.redirectUriMatch === 'prefix') return registered.some((r) => uri.startsWith(r.replace(/\/callback$/, '')));
    return registered.includes(uri);
  };

  function authorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    const clientId = q.get('client_id') ?? '';
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!CLIENTS[clientId]) return errorPage(res, 'unknown client');
    if (!redirectAllowed(clientId, redirectUri)) return errorPage(res, 'invalid redirect_uri');
    const state = q.get('state') ?? '';
    const back = (params: Record<string, string>, fragment = false) => {
      const target = new URL(redirectUri);
      const p = new URLSearchParams(params);
      if (fragment) target.hash = p.toString();
      else for (const [k, v] of p) target.searchParams.set(k, v);
      // The mangled state has its spaces turned into literal '+' signs (a decoding bug).
      if (weak.mangleState && !fragment) target.searchParams.set('state', state.replace(/ /g, '+'));
      res.writeHead(302, { location: target.href });
      res.end();
    };
    const iss: Record<string, string> = weak.noIss ? {} : { iss: weak.wrongIss ? 'https://other.example' : issuer };
    const responseType = q.get('response_type');
    if (responseType === 'token' && weak.implicit) return back({ access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', state }, true);
    if (responseType !== 'code') return back({ error: 'unsupported_response_type', state, ...iss });
    const challenge = q.get('code_challenge') ?? undefined;
    const method = q.get('code_challenge_method') ?? (challenge ? 'plain' : undefined);
    if (!challenge && !CLIENTS[clientId]?.secret && !weak.pkceOptional) return back({ error: 'invalid_request', error_description: 'code_challenge required', state, ...iss });
    if (method === 'plain' && !weak.allowPlain) return back({ error: 'invalid_request', error_description: 'plain not allowed', state, ...iss });
    const code = randomBytes(16).toString('base64url');
    codes.set(code, { clientId, redirectUri, scope: q.get('scope') ?? '', used: false, ...(challenge ? { challenge, method: method ?? 'S256' } : {}) });
    back({ code, state, ...iss });
  }

  function authenticate(req: IncomingMessage, form: URLSearchParams): { clientId: string } | { error: number; basic: boolean } {
    const header = req.headers.authorization;
    let clientId = form.get('client_id') ?? '';
    let secret = form.get('client_secret') ?? undefined;
    const basic = header?.startsWith('Basic ') ?? false;
    if (basic && header) {
      const [id = '', pw = ''] = Buffer.from(header.slice(6), 'base64')
        .toString()
        .split(':')
        .map((s) => decodeURIComponent(s.replace(/\+/g, ' ')));
      clientId = id;
      secret = pw;
    }
    const client = CLIENTS[clientId];
    if (!client) return { error: 401, basic };
    if (client.secret === undefined) return secret === undefined ? { clientId } : { error: 401, basic };
    if (secret === undefined) return { error: 401, basic };
    if (!same(secret, client.secret) && !weak.acceptWrongSecret) return { error: weak.wrongSecretStatus ?? 401, basic };
    return { clientId };
  }

  function issue(res: ServerResponse, clientId: string, scope: string): void {
    const body: Record<string, unknown> = { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 300, scope };
    if (scope.split(' ').includes('offline_access') && !weak.noRefreshTokens) {
      const rt = randomBytes(16).toString('hex');
      refreshTokens.set(rt, { clientId, scope, used: false });
      body.refresh_token = rt;
    }
    json(res, 200, body);
  }

  function token(req: IncomingMessage, form: URLSearchParams, res: ServerResponse): void {
    if (weak.brokenToken) return oauthError(res, 400, 'server_error');
    const auth = authenticate(req, form);
    if ('error' in auth) return oauthError(res, auth.error, 'invalid_client', auth.basic && auth.error === 401 ? { 'www-authenticate': 'Basic realm="weak"' } : {});
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      if (!code || (code.used && !weak.codeReusable)) return oauthError(res, 400, 'invalid_grant');
      if (code.clientId !== auth.clientId && !weak.ignoreClientAtToken) return oauthError(res, 400, 'invalid_grant');
      if (code.redirectUri !== form.get('redirect_uri') && !weak.ignoreRedirectUriAtToken) return oauthError(res, 400, 'invalid_grant');
      const verifier = form.get('code_verifier');
      if (code.challenge) {
        if (!verifier && !weak.allowDowngrade) return oauthError(res, 400, 'invalid_grant');
        if (verifier && !weak.ignoreVerifier) {
          const computed = code.method === 'plain' ? verifier : s256(verifier);
          if (!same(computed, code.challenge)) return oauthError(res, 400, 'invalid_grant');
        }
      } else if (verifier) {
        return oauthError(res, 400, 'invalid_grant');
      }
      code.used = true;
      return issue(res, auth.clientId, code.scope);
    }
    if (grantType === 'refresh_token') {
      const rt = form.get('refresh_token') ?? '';
      const entry = refreshTokens.get(rt);
      if (!entry || entry.clientId !== auth.clientId || (entry.used && !weak.refreshReuse)) return oauthError(res, 400, 'invalid_grant');
      if (weak.noRotation) return json(res, 200, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', refresh_token: rt });
      entry.used = true;
      return issue(res, auth.clientId, entry.scope);
    }
    oauthError(res, 400, 'unsupported_grant_type');
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          scopes_supported: ['photo', 'offline_access'],
          code_challenge_methods_supported: weak.allowPlain ? ['S256', 'plain'] : ['S256'],
          authorization_response_iss_parameter_supported: true,
        });
      }
      if (url.pathname === '/authorize' && req.method === 'GET') return authorize(url, res);
      if (url.pathname === '/token' && req.method === 'POST') return token(req, new URLSearchParams(Buffer.concat(chunks).toString()), res);
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
