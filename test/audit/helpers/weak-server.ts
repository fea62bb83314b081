import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createWeakKeys, type KeyWeaknesses } from './weak-keys.js';

/**
 * A small authorization server for the audit's tests: correct by default, with one switch per
 * weakness, so that every probe has a server on which it must fail. Its login page is a plain form
 * the audit's headless agent fills in once; after that it redirects at once.
 */
export interface Weaknesses extends KeyWeaknesses {
  /** The token endpoint always fails: the flow never completes. */
  brokenToken?: boolean;
  /** The state comes back with its spaces turned into '+' (decoded and re-encoded wrongly). */
  mangleState?: boolean;
  /** No iss in the redirect although the metadata announces it. */
  noIss?: boolean;
  wrongIss?: boolean;
  codeReusable?: boolean;
  /** A reused code is refused, but the tokens of its first use stay valid. */
  keepTokensOnCodeReuse?: boolean;
  /** Where RFC 6749 section 5.2 says invalid_grant, the server says invalid_request. */
  wrongGrantErrorCode?: boolean;
  ignoreRedirectUriAtToken?: boolean;
  ignoreClientAtToken?: boolean;
  /** Public clients may leave out the code challenge. */
  pkceOptional?: boolean;
  ignoreVerifier?: boolean;
  allowDowngrade?: boolean;
  allowPlain?: boolean;
  /** Redirect URIs compared by prefix, not at all, or without their query; or not a weakness: any given one
   *  replaced by the client's registered redirect URI. */
  redirectUriMatch?: 'prefix' | 'any' | 'ignore-query' | 'registered-instead';
  /** An invalid request with an unregistered redirect URI is redirected there with the error. */
  errorRedirectUnregistered?: boolean;
  acceptWrongSecret?: boolean;
  wrongSecretStatus?: number;
  /** The 401 after Basic authentication names the Bearer scheme. */
  bearerChallenge?: boolean;
  textErrors?: boolean;
  implicit?: boolean;
  noStore?: boolean;
  noRotation?: boolean;
  refreshReuse?: boolean;
  /** A reused refresh token is refused, but the newest of its family keeps working. */
  familySurvives?: boolean;
  noRefreshTokens?: boolean;
  /** The login page sends neither X-Frame-Options nor CSP frame-ancestors. */
  framable?: boolean;
  /** The metadata names another issuer, or no S256, or is a redirect elsewhere. */
  metadataIssuer?: string;
  metadataNoS256?: boolean;
  metadataRedirect?: boolean;
  /** GET at the token endpoint works; client_secret is read from the URL's query. */
  tokenAcceptsGet?: boolean;
  secretInQuery?: boolean;
  /** A repeated parameter is taken at its first value rather than refused. */
  acceptRepeated?: boolean;
  /** An unknown authorization parameter is an error. */
  rejectUnknownParams?: boolean;
  /** HTTPS with this key and certificate (PEM); `legacy` also offers TLS 1.0 and 1.1. */
  tls?: { key: string; cert: string; legacy?: boolean };
  /** No Strict-Transport-Security on the authorization endpoint (HTTPS only). */
  noHsts?: boolean;
  /** The endpoints live under this path (the metadata stays at the root). */
  endpointPath?: string;
  /** Not a weakness: ID tokens MAC'd (HS256) with the client secret, as OpenID Connect Core section 10.1 allows. */
  idTokenHs256?: boolean;
  /** Not a weakness: no login page, every authorization request is logged in at once. */
  autoLogin?: boolean;
  /** A public client (no secret) gets tokens by the client credentials grant. */
  clientCredentialsForPublic?: boolean;
  /**
   * Not a weakness: a portal that refuses without redirecting. Every error of the authorization endpoint
   * is a page (HTTP 200) whose message a script fills in, never a redirect to the client.
   */
  portal?: boolean;
  /** A device code keeps working after its tokens were issued. */
  deviceCodeReusable?: boolean;
  /** No slow_down, however fast the client polls. */
  noSlowDown?: boolean;
  /** The verification page approves whatever user code it is given. */
  acceptUnknownUserCode?: boolean;
}

export interface WeakServer {
  url: string;
  /** The path (and query) of every request received, in order. */
  requests: string[];
  close(): Promise<void>;
}

interface Code {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  method?: string;
  scope: string;
  nonce?: string;
  used: boolean;
  refreshTokens: string[];
}

interface DeviceCode {
  clientId: string;
  userCode: string;
  scope: string;
  approved: boolean;
  used: boolean;
  lastPoll?: number;
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const USER_CODE_LETTERS = 'BCDFGHJKLMNPQRSTVWXZ';

const CLIENTS: Record<string, { secret?: string; redirectUris: string[] }> = {
  pub: { redirectUris: ['http://127.0.0.1/callback'] },
  conf: { secret: 'conf-secret', redirectUris: ['http://127.0.0.1/callback'] },
  other: { secret: 'other-secret', redirectUris: ['http://127.0.0.1/callback'] },
};
const AUTHORIZE_PARAMS = new Set(['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'nonce']);

const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const html = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const repeated = (p: URLSearchParams) => new Set(p.keys()).size !== [...p.keys()].length;

export async function startWeakServer(weak: Weaknesses = {}): Promise<WeakServer> {
  const codes = new Map<string, Code>();
  const refreshTokens = new Map<string, { clientId: string; scope: string; used: boolean; family: string }>();
  const deviceCodes = new Map<string, DeviceCode>();
  const revokedFamilies = new Set<string>();
  const keys = createWeakKeys(weak);
  const requests: string[] = [];
  const base = weak.endpointPath ?? '';
  let issuer = '';

  const json = (res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...(weak.noStore ? {} : { 'cache-control': 'no-store' }), ...extra });
    res.end(JSON.stringify(body));
  };
  const oauthError = (res: ServerResponse, status: number, error: string, extra: Record<string, string> = {}) => {
    const code = error === 'invalid_grant' && weak.wrongGrantErrorCode ? 'invalid_request' : error;
    if (weak.textErrors) {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(`${code}\n`);
      return;
    }
    json(res, status, { error: code, error_description: `the request failed: ${code}` }, extra);
  };
  const pageHeaders = (): Record<string, string> => ({
    'content-type': 'text/html',
    ...(weak.framable ? {} : { 'x-frame-options': 'DENY', 'content-security-policy': "frame-ancestors 'none'" }),
    ...(weak.tls && !weak.noHsts ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  });
  const errorPage = (res: ServerResponse, text: string) => {
    if (weak.portal) {
      res.writeHead(200, pageHeaders());
      res.end(`<!doctype html><title>Portal</title><div id="message"></div><script>document.getElementById('message').textContent = ${JSON.stringify(text)};</script>`);
      return;
    }
    res.writeHead(400, pageHeaders());
    res.end(`<!doctype html><title>Error</title><p class="error">${text}</p>`);
  };

  const redirectAllowed = (clientId: string, uri: string) => {
    const registered = CLIENTS[clientId]?.redirectUris ?? [];
    if (weak.redirectUriMatch === 'any') return true;
    if (weak.redirectUriMatch === 'prefix') return registered.some((r) => uri.startsWith(r.replace(/\/callback$/, '')));
    if (weak.redirectUriMatch === 'ignore-query') return registered.includes(uri.replace(/\?.*$/, ''));
    return registered.includes(uri);
  };

  function authorize(req: IncomingMessage, url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    if (!weak.autoLogin && !/(^|;\s*)weak_session=1/.test(req.headers.cookie ?? '')) {
      res.writeHead(200, pageHeaders());
      res.end(
        `<!doctype html><title>Sign in</title><form method="post" action="${base}/login"><input type="hidden" name="return" value="${html(url.href)}"><label>Username <input name="username"></label><label>Password <input type="password" name="password"></label><button type="submit">Sign in</button></form>`,
      );
      return;
    }
    const clientId = q.get('client_id') ?? '';
    const registered = CLIENTS[clientId]?.redirectUris[0];
    const redirectUri = weak.redirectUriMatch === 'registered-instead' && registered ? registered : (q.get('redirect_uri') ?? '');
    const state = q.get('state') ?? '';
    const back = (params: Record<string, string>, fragment = false) => {
      if (weak.portal && params.error !== undefined) return errorPage(res, params.error);
      const target = new URL(redirectUri);
      const p = new URLSearchParams(params);
      if (fragment) target.hash = p.toString();
      else for (const [k, v] of p) target.searchParams.set(k, v);
      // The mangled state has its spaces turned into literal '+' signs (a decoding bug).
      if (weak.mangleState && !fragment) target.searchParams.set('state', state.replace(/ /g, '+'));
      res.writeHead(302, { location: target.href, ...(weak.tls && !weak.noHsts ? { 'strict-transport-security': 'max-age=31536000' } : {}) });
      res.end();
    };
    if (!CLIENTS[clientId]) return errorPage(res, 'unknown client');
    const responseType = q.get('response_type');
    if (!redirectAllowed(clientId, redirectUri)) {
      if (weak.errorRedirectUnregistered && responseType !== 'code') return back({ error: 'unsupported_response_type', state });
      return errorPage(res, 'invalid redirect_uri');
    }
    const iss: Record<string, string> = weak.noIss ? {} : { iss: weak.wrongIss ? 'https://other.example' : issuer };
    if (repeated(q) && !weak.acceptRepeated) return back({ error: 'invalid_request', error_description: 'a parameter is repeated', state, ...iss });
    if (weak.rejectUnknownParams && [...q.keys()].some((k) => !AUTHORIZE_PARAMS.has(k))) return back({ error: 'invalid_request', error_description: 'unknown parameter', state, ...iss });
    if (responseType === 'token' && weak.implicit) return back({ access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', state }, true);
    if (responseType !== 'code') return back({ error: 'unsupported_response_type', state, ...iss });
    const challenge = q.get('code_challenge') ?? undefined;
    const method = q.get('code_challenge_method') ?? (challenge ? 'plain' : undefined);
    if (!challenge && !CLIENTS[clientId]?.secret && !weak.pkceOptional) return back({ error: 'invalid_request', error_description: 'code_challenge required', state, ...iss });
    if (method === 'plain' && !weak.allowPlain) return back({ error: 'invalid_request', error_description: 'plain not allowed', state, ...iss });
    const code = randomBytes(16).toString('base64url');
    const nonce = q.get('nonce') ?? undefined;
    codes.set(code, { clientId, redirectUri, scope: q.get('scope') ?? '', used: false, refreshTokens: [], ...(nonce ? { nonce } : {}), ...(challenge ? { challenge, method: method ?? 'S256' } : {}) });
    back({ code, state, ...iss });
  }

  function login(form: URLSearchParams, res: ServerResponse): void {
    const target = new URL(form.get('return') ?? '/', issuer);
    res.writeHead(302, { location: target.href, 'set-cookie': 'weak_session=1; Path=/; HttpOnly' });
    res.end();
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

  async function issue(res: ServerResponse, clientId: string, scope: string, extra: { family?: string; code?: Code } = {}): Promise<void> {
    const accessToken = randomBytes(16).toString('hex');
    const body: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer', expires_in: 300, scope };
    const scopes = scope.split(' ');
    if (scopes.includes('offline_access') && !weak.noRefreshTokens) {
      const rt = randomBytes(16).toString('hex');
      refreshTokens.set(rt, { clientId, scope, used: false, family: extra.family ?? rt });
      extra.code?.refreshTokens.push(rt);
      body.refresh_token = rt;
    }
    if (scopes.includes('openid') && extra.code) {
      const now = Math.floor(Date.now() / 1000);
      body.id_token = await keys.idToken(
        { iss: issuer, sub: 'u', aud: clientId, iat: now, exp: now + 300, ...(extra.code.nonce ? { nonce: extra.code.nonce } : {}) },
        accessToken,
        weak.idTokenHs256 ? CLIENTS[clientId]?.secret : undefined,
      );
    }
    json(res, 200, body);
  }

  async function token(req: IncomingMessage, form: URLSearchParams, res: ServerResponse): Promise<void> {
    if (weak.brokenToken) return oauthError(res, 400, 'server_error');
    const auth = authenticate(req, form);
    if ('error' in auth) {
      const challenge = weak.bearerChallenge ? 'Bearer realm="weak"' : 'Basic realm="weak"';
      return oauthError(res, auth.error, 'invalid_client', auth.basic && auth.error === 401 ? { 'www-authenticate': challenge } : {});
    }
    if (repeated(form) && !weak.acceptRepeated) return oauthError(res, 400, 'invalid_request');
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      if (!code) return oauthError(res, 400, 'invalid_grant');
      if (code.used && !weak.codeReusable) {
        // RFC 6749 section 4.1.2: revoke what the first use issued.
        if (!weak.keepTokensOnCodeReuse) for (const rt of code.refreshTokens) revokedFamilies.add(refreshTokens.get(rt)?.family ?? rt);
        return oauthError(res, 400, 'invalid_grant');
      }
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
      return issue(res, auth.clientId, code.scope, { code });
    }
    if (grantType === 'refresh_token') {
      const rt = form.get('refresh_token') ?? '';
      const entry = refreshTokens.get(rt);
      if (!entry || entry.clientId !== auth.clientId || revokedFamilies.has(entry.family)) return oauthError(res, 400, 'invalid_grant');
      if (entry.used && !weak.refreshReuse) {
        // RFC 9700 section 4.14.2: a reused refresh token revokes its whole family.
        if (!weak.familySurvives) revokedFamilies.add(entry.family);
        return oauthError(res, 400, 'invalid_grant');
      }
      if (weak.noRotation) return json(res, 200, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', refresh_token: rt });
      entry.used = true;
      return issue(res, auth.clientId, entry.scope, { family: entry.family });
    }
    if (grantType === 'client_credentials') {
      if (!CLIENTS[auth.clientId]?.secret && !weak.clientCredentialsForPublic) return oauthError(res, 400, 'unauthorized_client');
      return issue(res, auth.clientId, form.get('scope') ?? '');
    }
    if (grantType === DEVICE_GRANT) {
      const device = deviceCodes.get(form.get('device_code') ?? '');
      if (!device || device.clientId !== auth.clientId || (device.used && !weak.deviceCodeReusable)) return oauthError(res, 400, 'invalid_grant');
      const now = Date.now();
      const fast = device.lastPoll !== undefined && now - device.lastPoll < 1000;
      device.lastPoll = now;
      if (fast && !weak.noSlowDown) return oauthError(res, 400, 'slow_down');
      if (!device.approved) return oauthError(res, 400, 'authorization_pending');
      device.used = true;
      return issue(res, auth.clientId, device.scope);
    }
    oauthError(res, 400, 'unsupported_grant_type');
  }

  function deviceAuthorization(req: IncomingMessage, form: URLSearchParams, res: ServerResponse): void {
    const auth = authenticate(req, form);
    if ('error' in auth) return oauthError(res, auth.error, 'invalid_client');
    let userCode = '';
    for (const byte of randomBytes(8)) userCode += USER_CODE_LETTERS[byte % USER_CODE_LETTERS.length];
    const deviceCode = randomBytes(16).toString('hex');
    deviceCodes.set(deviceCode, { clientId: auth.clientId, userCode, scope: form.get('scope') ?? '', approved: false, used: false });
    json(res, 200, {
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: `${issuer}${base}/device`,
      verification_uri_complete: `${issuer}${base}/device?user_code=${userCode}`,
      expires_in: 600,
      interval: 1,
    });
  }

  /** The verification page, logging in automatically: a known code is approved at once. */
  function verification(url: URL, res: ServerResponse): void {
    const code = url.searchParams.get('user_code') ?? '';
    const device = [...deviceCodes.values()].find((d) => d.userCode === code && !d.approved);
    if (!device && !weak.acceptUnknownUserCode) return errorPage(res, 'unknown code');
    if (device) device.approved = true;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>Done</title><p>Device connected.</p>');
  }

  function metadata(res: ServerResponse): void {
    if (weak.metadataRedirect) {
      res.writeHead(302, { location: 'https://metadata.example/oauth-authorization-server' });
      return void res.end();
    }
    json(res, 200, {
      issuer: weak.metadataIssuer ?? issuer,
      authorization_endpoint: `${issuer}${base}/authorize`,
      token_endpoint: `${issuer}${base}/token`,
      jwks_uri: `${issuer}${base}/jwks`,
      response_types_supported: ['code'],
      scopes_supported: ['photo', 'offline_access', 'openid'],
      code_challenge_methods_supported: weak.metadataNoS256 ? ['plain'] : weak.allowPlain ? ['S256', 'plain'] : ['S256'],
      authorization_response_iss_parameter_supported: true,
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_GRANT],
      device_authorization_endpoint: `${issuer}${base}/device_authorization`,
    });
  }

  const handle = async (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', issuer);
    requests.push(`${url.pathname}${url.search}`);
    const path = url.pathname.startsWith(base) ? url.pathname.slice(base.length) : url.pathname;
    if (url.pathname === '/.well-known/oauth-authorization-server') return metadata(res);
    if (path === '/jwks' && req.method === 'GET') return json(res, 200, await keys.jwks());
    if (path === '/authorize' && req.method === 'GET') return authorize(req, url, res);
    if (path === '/login' && req.method === 'POST') return login(new URLSearchParams(body), res);
    if (path === '/device_authorization' && req.method === 'POST') return deviceAuthorization(req, new URLSearchParams(body), res);
    if (path === '/device' && req.method === 'GET') return verification(url, res);
    if (path === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(body);
      if (weak.secretInQuery) for (const [k, v] of url.searchParams) form.append(k, v);
      return token(req, form, res);
    }
    if (path === '/token' && req.method === 'GET' && weak.tokenAcceptsGet) return token(req, url.searchParams, res);
    if (path === '/token') return oauthError(res, 405, 'invalid_request', { allow: 'POST' });
    res.writeHead(404).end();
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString()).catch(() => res.writeHead(500).end());
    });
  };
  const server = weak.tls
    ? createHttpsServer({ key: weak.tls.key, cert: weak.tls.cert, ...(weak.tls.legacy ? { minVersion: 'TLSv1' as const, ciphers: 'DEFAULT@SECLEVEL=0' } : {}) }, listener)
    : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `${weak.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: issuer,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
