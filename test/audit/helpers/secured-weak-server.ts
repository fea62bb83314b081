import { createHash, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { keyPairSync } from '../../helpers/keys.js';

/**
 * A small authorization server with PAR, DPoP, private_key_jwt and request objects, correct by
 * default, with one switch per weakness the PAR, DPoP, JWT and request object probes look for. It logs in
 * automatically (authorize redirects at once) and ignores PKCE (other probes test that).
 */
export interface SecuredWeaknesses {
  /** The metadata says require_pushed_authorization_requests. */
  requirePar?: boolean;
  /** ... but a request that was not pushed still gets a code. */
  parNotEnforced?: boolean;
  parReusable?: boolean;
  parAnyClient?: boolean;
  /** expires_in of a request_uri (default 60). */
  parExpiresIn?: number;
  parNoExpiry?: boolean;
  /** A pushed request may name any redirect URI (RFC 9126 section 2.4 lets a server allow it to an authenticated client). */
  parAnyRedirectUri?: boolean;
  dpopReplay?: boolean;
  dpopIgnoreHtm?: boolean;
  dpopIgnoreHtu?: boolean;
  dpopBearerOk?: boolean;
  assertionReplay?: boolean;
  assertionAnyAudience?: boolean;
  assertionExpiredOk?: boolean;
  acceptUnsignedRequest?: boolean;
  /** The metadata says require_signed_request_object (RFC 9101 section 10.5). */
  requireSignedRequestObject?: boolean;
  /** The PAR endpoint refuses every client's authentication (HTTP 401 invalid_client); authorize works without PAR. */
  parRefusesClients?: boolean;
  /** Not a weakness: errors are a page (HTTP 200) whose message a script fills in, never a redirect. */
  portal?: boolean;
}

export interface SecuredWeakServer {
  url: string;
  /** The private key (PKCS#8 PEM text) registered for client `jwt` (private_key_jwt). */
  jwtClientKeyPem: string;
  close(): Promise<void>;
}

const CLIENTS: Record<string, { secret?: string; jwt?: boolean }> = { pub: {}, other: { secret: 'other-secret' }, jwt: { jwt: true } };

export async function startSecuredWeakServer(weak: SecuredWeaknesses = {}): Promise<SecuredWeakServer> {
  const { privateKey, publicKey } = keyPairSync('ec', { namedCurve: 'P-256' });
  const pushed = new Map<string, { clientId: string; params: Record<string, string>; expiresAt: number; used: boolean }>();
  const codes = new Map<string, { clientId: string; redirectUri: string; used: boolean }>();
  const tokens = new Map<string, { jkt?: string }>();
  const seenJti = new Set<string>();
  let issuer = '';

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
  };
  const errorPage = (res: ServerResponse, text: string): void => {
    if (weak.portal) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>Portal</title><div id="message"></div><script>document.getElementById('message').textContent = ${JSON.stringify(text)};</script>`);
      return;
    }
    res.writeHead(400, { 'content-type': 'text/html' }).end(`<!doctype html><title>Error</title><p>${text}</p>`);
  };

  async function authenticate(req: IncomingMessage, form: URLSearchParams): Promise<string | undefined> {
    const header = req.headers.authorization;
    if (header?.startsWith('Basic ')) {
      const [id = '', secret = ''] = Buffer.from(header.slice(6), 'base64').toString().split(':').map(decodeURIComponent);
      return CLIENTS[id]?.secret === secret ? id : undefined;
    }
    const clientId = form.get('client_id') ?? '';
    const client = CLIENTS[clientId];
    if (!client) return undefined;
    if (client.jwt) return (await checkAssertion(form.get('client_assertion') ?? '', clientId, publicKey)) ? clientId : undefined;
    if (client.secret !== undefined) return form.get('client_secret') === client.secret ? clientId : undefined;
    return clientId;
  }

  async function checkAssertion(assertion: string, clientId: string, key: KeyObject): Promise<boolean> {
    try {
      const { payload } = await jwtVerify(assertion, key, {
        issuer: clientId,
        subject: clientId,
        ...(weak.assertionAnyAudience ? {} : { audience: [issuer, `${issuer}/token`, `${issuer}/par`] }),
        ...(weak.assertionExpiredOk ? { clockTolerance: 86_400 } : {}),
      });
      const jti = String(payload.jti);
      if (seenJti.has(jti) && !weak.assertionReplay) return false;
      seenJti.add(jti);
      return true;
    } catch {
      return false;
    }
  }

  /** RFC 9449 section 4.3, as far as the probes need: signature, typ, htm, htu, jti once; ath when a token is given. */
  async function checkProof(proof: string | undefined, method: string, uri: string, accessToken?: string): Promise<string | undefined> {
    if (!proof) return undefined;
    try {
      const header = decodeProtectedHeader(proof);
      if (header.typ !== 'dpop+jwt' || !header.jwk) return undefined;
      const { payload } = await jwtVerify(proof, await importJWK(header.jwk as JWK, header.alg));
      if (payload.htm !== method && !weak.dpopIgnoreHtm) return undefined;
      if (payload.htu !== uri && !weak.dpopIgnoreHtu) return undefined;
      const jti = `dpop:${String(payload.jti)}`;
      if (seenJti.has(jti) && !weak.dpopReplay) return undefined;
      seenJti.add(jti);
      if (accessToken !== undefined && payload.ath !== createHash('sha256').update(accessToken).digest('base64url')) return undefined;
      const { x, y, crv, kty } = header.jwk as JWK;
      return createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
    } catch {
      return undefined;
    }
  }

  function authorize(url: URL, res: ServerResponse): void {
    let q: Record<string, string> = Object.fromEntries(url.searchParams);
    const requestUri = q.request_uri;
    if (requestUri !== undefined) {
      const entry = pushed.get(requestUri);
      if (!entry) return errorPage(res, 'invalid request_uri');
      if (entry.used && !weak.parReusable) return errorPage(res, 'request_uri already used');
      if (entry.clientId !== q.client_id && !weak.parAnyClient) return errorPage(res, 'request_uri of another client');
      if (Date.now() > entry.expiresAt && !weak.parNoExpiry) return errorPage(res, 'request_uri expired');
      entry.used = true;
      q = { ...entry.params, client_id: q.client_id ?? '' };
    } else if (weak.requirePar && !weak.parNotEnforced) {
      return errorPage(res, 'pushed authorization requests are required');
    }
    if (q.request !== undefined) {
      if (decodeProtectedHeader(q.request).alg !== 'none' || weak.acceptUnsignedRequest) q = { ...q, ...(decodeJwt(q.request) as Record<string, string>) };
      else return errorPage(res, 'request objects must be signed');
    }
    // Any port on the loopback address (RFC 8252 section 7.3), the path exactly.
    const loopback = /^http:\/\/127\.0\.0\.1(:\d+)?\/callback$/.test(q.redirect_uri ?? '');
    if (!CLIENTS[q.client_id ?? ''] || (!loopback && !(requestUri !== undefined && weak.parAnyRedirectUri))) return errorPage(res, 'invalid client or redirect_uri');
    const code = randomBytes(12).toString('base64url');
    codes.set(code, { clientId: q.client_id ?? '', redirectUri: q.redirect_uri, used: false });
    const target = new URL(q.redirect_uri ?? '');
    target.searchParams.set('code', code);
    target.searchParams.set('state', q.state ?? '');
    res.writeHead(302, { location: target.href });
    res.end();
  }

  async function par(req: IncomingMessage, form: URLSearchParams, res: ServerResponse): Promise<void> {
    const clientId = weak.parRefusesClients ? undefined : await authenticate(req, form);
    if (!clientId) return json(res, 401, { error: 'invalid_client' });
    const uri = `urn:ietf:params:oauth:request_uri:${randomBytes(12).toString('base64url')}`;
    const expiresIn = weak.parExpiresIn ?? 60;
    const params = Object.fromEntries([...form].filter(([k]) => !k.startsWith('client_assertion') && k !== 'client_secret'));
    pushed.set(uri, { clientId, params, expiresAt: Date.now() + expiresIn * 1000, used: false });
    json(res, 201, { request_uri: uri, expires_in: expiresIn });
  }

  async function token(req: IncomingMessage, form: URLSearchParams, res: ServerResponse): Promise<void> {
    const clientId = await authenticate(req, form);
    if (!clientId) return json(res, 401, { error: 'invalid_client' });
    const dpop = req.headers.dpop as string | undefined;
    const jkt = await checkProof(dpop, 'POST', `${issuer}/token`);
    if (dpop !== undefined && jkt === undefined) return json(res, 400, { error: 'invalid_dpop_proof' });
    const code = codes.get(form.get('code') ?? '');
    if (!code || code.used || code.clientId !== clientId || code.redirectUri !== form.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant' });
    code.used = true;
    const accessToken = randomBytes(16).toString('hex');
    tokens.set(accessToken, jkt !== undefined ? { jkt } : {});
    json(res, 200, { access_token: accessToken, token_type: jkt !== undefined ? 'DPoP' : 'Bearer', expires_in: 300 });
  }

  async function userinfo(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [scheme = '', accessToken = ''] = (req.headers.authorization ?? '').split(' ');
    const entry = tokens.get(accessToken);
    if (!entry) return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
    if (entry.jkt !== undefined) {
      if (scheme === 'Bearer' && !weak.dpopBearerOk) return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': 'DPoP error="invalid_token"' });
      if (scheme === 'DPoP' && (await checkProof(req.headers.dpop as string | undefined, 'GET', `${issuer}/userinfo`, accessToken)) !== entry.jkt) {
        return json(res, 401, { error: 'invalid_dpop_proof' }, { 'www-authenticate': 'DPoP error="invalid_dpop_proof"' });
      }
    }
    json(res, 200, { sub: 'u' });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          pushed_authorization_request_endpoint: `${issuer}/par`,
          userinfo_endpoint: `${issuer}/userinfo`,
          require_pushed_authorization_requests: weak.requirePar === true,
          dpop_signing_alg_values_supported: ['ES256'],
          request_parameter_supported: true,
          request_object_signing_alg_values_supported: ['ES256'],
          ...(weak.requireSignedRequestObject ? { require_signed_request_object: true } : {}),
          token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'private_key_jwt'],
          code_challenge_methods_supported: ['S256'],
        });
      }
      const done = (p: Promise<void> | void) => void Promise.resolve(p).catch(() => json(res, 500, { error: 'server_error' }));
      if (url.pathname === '/authorize') return done(authorize(url, res));
      if (url.pathname === '/par' && req.method === 'POST') return done(par(req, form, res));
      if (url.pathname === '/token' && req.method === 'POST') return done(token(req, form, res));
      if (url.pathname === '/userinfo') return done(userinfo(req, res));
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: issuer,
    jwtClientKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
