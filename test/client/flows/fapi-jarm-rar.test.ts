// JARM response modes, rich authorization requests and --fapi2: the BUILT CLI against the mock (what the
// mock received read from its request log), and against a hostile authorization server on loopback that
// forges response JWTs.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { type KeyObject } from 'node:crypto';
import { SignJWT, exportJWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../../src/mock/index.js';
import { consentPage } from '../../../src/mock/core/pages/pages.js';
import { cliHome, FIXTURE_KEY, HEADLESS, jwt, param, requestsAt, startModernMock, type CliHome } from '../helpers/modern-mock.js';
import { keyPairSync } from '../../helpers/keys.js';

const DETAILS = [{ type: 'payment_initiation', instructedAmount: { currency: 'EUR', amount: '12.00' }, creditorName: 'Merchant A' }];
const KEY_LOGIN = ['--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', FIXTURE_KEY];

let mock: MockServer;
let home: CliHome;
beforeAll(async () => {
  mock = await startModernMock({}, (c) => ({
    ...c,
    authorization_details_types: ['payment_initiation'],
    clients: [...(c.clients ?? []), { client_id: 'rar-app', client_secret: 'rar-app-secret', redirect_uris: ['http://127.0.0.1/callback'] }],
  }));
  home = cliHome();
});
afterAll(async () => {
  await mock.close();
  home.remove();
});

async function login(...args: string[]) {
  mock.clearRequests();
  const r = await home.run(['login', '--issuer', mock.issuer, '--scope', 'openid photo', ...HEADLESS, '--json', ...args]);
  return { ...r, tokens: r.code === 0 ? (JSON.parse(r.stdout) as Record<string, unknown>) : {} };
}

describe('--response-mode (JARM) against the mock', () => {
  it.each(['jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt'])('%s: the response JWT is verified before the code is used', async (mode) => {
    const r = await login(...KEY_LOGIN, '--response-mode', mode);
    expect(r.code, r.stderr).toBe(0);
    expect(param(requestsAt(mock, '/authorize')[0]?.query, 'response_mode')).toBe(mode);
    expect(r.stderr).toMatch(/Authorization response JWT \(JARM\)/);
    expect(r.stderr).toMatch(new RegExp(`response JWT verified: \\S+ signature valid .*; iss is ${mock.issuer.replace(/[.:/]/g, '\\$&')}; aud holds photo-jwt; expires in \\d+ s`));
    expect(requestsAt(mock, '/token')[0]?.status).toBe(200);
  });

  it('the mock announces the JWT modes and their signing algorithm', async () => {
    const m = (await (await fetch(`${mock.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(m.response_modes_supported).toEqual(['query', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt']);
    expect(m.authorization_signing_alg_values_supported).toEqual(['ES256']);
    expect(m.authorization_details_types_supported).toEqual(['payment_initiation']);
  });

  it('without --issuer (no keys to verify with) it exits 2 before any request', async () => {
    mock.clearRequests();
    const r = await home.run(['login', '--auth-url', mock.issuer, ...KEY_LOGIN, ...HEADLESS, '--response-mode', 'jwt']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^oauthctl: error: --response-mode jwt needs the issuer and its keys/)]);
    expect(mock.requests()).toEqual([]);
  });
});

describe('--authorization-details (RFC 9396) against the mock', () => {
  it('sent in the authorization request and the token request; granted details shown, cached, in the token and introspection', async () => {
    const r = await login('--client-id', 'rar-app', '--client-secret', 'rar-app-secret', '--authorization-details', JSON.stringify(DETAILS));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(param(requestsAt(mock, '/authorize')[0]?.query, 'authorization_details') ?? 'null')).toEqual(DETAILS);
    expect(JSON.parse(param(requestsAt(mock, '/token')[0]?.form, 'authorization_details') ?? 'null')).toEqual(DETAILS);
    expect(r.tokens.authorization_details).toEqual(DETAILS);
    expect(jwt(r.tokens.access_token as string).claims.authorization_details).toEqual(DETAILS);
    const introspection = await fetch(`${mock.issuer}/introspect`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('rar-app:rar-app-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: r.tokens.access_token as string }),
    });
    expect(((await introspection.json()) as Record<string, unknown>).authorization_details).toEqual(DETAILS);
    const cached = await home.run(['token', '--issuer', mock.issuer, '--client-id', 'rar-app', '--format', 'json']);
    expect(cached.code, cached.stderr).toBe(0);
    expect(JSON.parse(cached.stdout).authorization_details).toEqual(DETAILS);
  });

  it('from @FILE, pushed with --par: the PAR body carries them', async () => {
    const file = `${home.dir}/details.json`;
    (await import('node:fs')).writeFileSync(file, JSON.stringify(DETAILS));
    const r = await login('--client-id', 'rar-app', '--client-secret', 'rar-app-secret', '--par', '--authorization-details', `@${file}`);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(param(requestsAt(mock, '/par')[0]?.form, 'authorization_details') ?? 'null')).toEqual(DETAILS);
  });

  it('an unknown type: the mock answers invalid_authorization_details (a redirect at /authorize, a 400 at PAR), exit 1', async () => {
    const unknown = JSON.stringify([{ type: 'account_information' }]);
    const front = await login('--client-id', 'rar-app', '--client-secret', 'rar-app-secret', '--authorization-details', unknown);
    expect(front.code).toBe(1);
    expect(front.stderr).toMatch(/invalid_authorization_details/);
    expect(requestsAt(mock, '/token')).toEqual([]);
    const pushed = await login('--client-id', 'rar-app', '--client-secret', 'rar-app-secret', '--par', '--authorization-details', unknown);
    expect(pushed.code).toBe(1);
    expect(requestsAt(mock, '/par')[0]?.status).toBe(400);
    expect(requestsAt(mock, '/par')[0]?.error).toBe('invalid_authorization_details');
  });

  it('the mock refuses, at the token endpoint, a type the code was not granted (RFC 9396 section 6.1)', async () => {
    const auto = await startModernMock({ autoLogin: 'alice' }, (c) => ({
      ...c,
      authorization_details_types: ['payment_initiation', 'account_information'],
      clients: [{ client_id: 'rar-app', client_secret: 'rar-app-secret', redirect_uris: ['http://127.0.0.1/callback'] }],
    }));
    try {
      const code = async () => {
        const q = new URLSearchParams({
          response_type: 'code',
          client_id: 'rar-app',
          redirect_uri: 'http://127.0.0.1/callback',
          state: 's',
          scope: 'photo offline_access',
          authorization_details: JSON.stringify(DETAILS),
        });
        const res = await fetch(`${auto.issuer}/authorize?${q}`, { redirect: 'manual' });
        return new URL(res.headers.get('location')!).searchParams.get('code')!;
      };
      const redeem = async (details: unknown) =>
        fetch(`${auto.issuer}/token`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from('rar-app:rar-app-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', code: await code(), redirect_uri: 'http://127.0.0.1/callback', authorization_details: JSON.stringify(details) }),
        });
      const other = await redeem([{ type: 'account_information' }]);
      expect(other.status).toBe(400);
      expect(((await other.json()) as Record<string, unknown>).error).toBe('invalid_authorization_details');
      const same = await redeem(DETAILS);
      expect(same.status).toBe(200);
      const tokens = (await same.json()) as Record<string, unknown>;
      expect(tokens.authorization_details).toEqual(DETAILS);
      // RFC 9396 section 7: a refresh keeps the grant's details.
      const refreshed = await fetch(`${auto.issuer}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('rar-app:rar-app-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string }),
      });
      const r2 = (await refreshed.json()) as Record<string, unknown>;
      expect(r2.authorization_details).toEqual(DETAILS);
    } finally {
      await auto.close();
    }
  });

  it.each([
    ['not JSON', '[{"type":', /not valid JSON/],
    ['an object, not an array', '{"type":"payment_initiation"}', /must be a JSON array/],
    ['an entry without type', '[{"actions":["read"]}]', /\[0\] has no type/],
  ])('%s: exit 2 in one line before any request', async (_name, value, message) => {
    mock.clearRequests();
    const r = await home.run(['login', '--issuer', mock.issuer, '--client-id', 'rar-app', '--client-secret', 'rar-app-secret', ...HEADLESS, '--authorization-details', value]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
    expect(mock.requests()).toEqual([]);
  });
});

describe('--fapi2 against the mock', () => {
  let fapi: MockServer;
  beforeAll(async () => {
    fapi = await startModernMock({}, (c) => ({ ...c, security_profile: 'fapi2' }));
  });
  afterAll(() => fapi.close());

  it('PAR, PKCE S256, a DPoP-bound token, and the issuer as the assertion audience', async () => {
    fapi.clearRequests();
    const r = await home.run(['login', '--issuer', fapi.issuer, '--scope', 'openid photo', ...HEADLESS, '--json', '--no-cache', ...KEY_LOGIN, '--fapi2']);
    expect(r.code, r.stderr).toBe(0);
    const par = requestsAt(fapi, '/par')[0];
    expect(param(par?.form, 'code_challenge_method')).toBe('S256');
    expect(Object.keys(requestsAt(fapi, '/authorize')[0]?.query ?? {}).sort()).toEqual(['client_id', 'request_uri']);
    const token = requestsAt(fapi, '/token')[0];
    expect(token?.headers.dpop).toBeDefined();
    expect(jwt(param(token?.form, 'client_assertion')).claims.aud).toBe(fapi.issuer);
    expect(JSON.parse(r.stdout).token_type).toBe('DPoP');
  });

  it('a client secret is not a FAPI 2.0 client authentication: exit 2 before any request', async () => {
    fapi.clearRequests();
    const r = await home.run(['login', '--issuer', fapi.issuer, '--client-id', 'photo-par', '--client-secret', 'photo-par-secret', ...HEADLESS, '--fapi2']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^oauthctl: error: --fapi2 requires --auth-method private_key_jwt, tls_client_auth or self_signed_tls_client_auth, not client_secret_basic/),
    ]);
    expect(fapi.requests()).toEqual([]);
  });

  it('the mock in fapi2 mode announces only private_key_jwt; a plain authorization request and a secret client at PAR are refused', async () => {
    const m = (await (await fetch(`${fapi.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(m.token_endpoint_auth_methods_supported).toEqual(['private_key_jwt']);
    expect(m.require_pushed_authorization_requests).toBe(true);
    expect(m.code_challenge_methods_supported).toEqual(['S256']);
    const plain = await fetch(`${fapi.issuer}/authorize?response_type=code&client_id=photo-jwt&redirect_uri=${encodeURIComponent('http://127.0.0.1:1/callback')}&state=s&scope=photo`, {
      redirect: 'manual',
    });
    expect(new URL(plain.headers.get('location') ?? 'http://x/').searchParams.get('error')).toBe('invalid_request');
    const secret = await fetch(`${fapi.issuer}/par`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('photo-par:photo-par-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ response_type: 'code', client_id: 'photo-par', redirect_uri: 'http://127.0.0.1/callback', state: 's', scope: 'photo' }),
    });
    expect(secret.status).toBe(401);
    expect(((await secret.json()) as Record<string, unknown>).error).toBe('invalid_client');
  });

  it('a code lifetime over 60 s is refused in the configuration, naming the field', async () => {
    await expect(startModernMock({}, (c) => ({ ...c, security_profile: 'fapi2', lifetimes: { code: 120 } }))).rejects.toThrow(/lifetimes\.code: must be at most 60 with security_profile fapi2/);
  });
});

/**
 * A hostile authorization server: real metadata and JWKS, but its /authorize redirects with a response
 * JWT the test forges; every token request is recorded (none may arrive).
 */
interface Hostile {
  issuer: string;
  tokenRequests: number;
  forge: (claims: Record<string, unknown>) => Promise<string>;
  close(): Promise<void>;
}
let hostile: Hostile | undefined;
afterEach(async () => {
  await hostile?.close();
  hostile = undefined;
});

async function startHostile(response: (h: Hostile, request: URL) => Promise<string>): Promise<Hostile> {
  const { publicKey, privateKey } = keyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const h: Hostile = {
    issuer: '',
    tokenRequests: 0,
    forge: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey as KeyObject),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', h.issuer);
      const json = (o: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(o));
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return json({
          issuer: h.issuer,
          authorization_endpoint: `${h.issuer}/authorize`,
          token_endpoint: `${h.issuer}/token`,
          jwks_uri: `${h.issuer}/jwks`,
          response_modes_supported: ['query.jwt'],
        });
      }
      if (url.pathname === '/jwks') return json({ keys: [jwk] });
      if (url.pathname === '/authorize') {
        const to = new URL(url.searchParams.get('redirect_uri')!);
        to.searchParams.set('response', await response(h, url));
        return res.writeHead(302, { location: to.href }).end();
      }
      if (url.pathname === '/token') h.tokenRequests++;
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  h.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return h;
}

const now = () => Math.floor(Date.now() / 1000);
const stateOf = (u: URL) => u.searchParams.get('state') ?? '';

describe('--response-mode: forged response JWTs from a hostile server are refused before any token request', () => {
  const cases: [string, (h: Hostile, u: URL) => Promise<string>, RegExp][] = [
    ['for another client (aud)', (h, u) => h.forge({ iss: h.issuer, aud: 'other-client', exp: now() + 60, code: 'c', state: stateOf(u) }), /aud: aud is other-client, which does not hold app/],
    ['from another issuer', (h, u) => h.forge({ iss: 'https://evil.example', aud: 'app', exp: now() + 60, code: 'c', state: stateOf(u) }), /iss: iss is https:\/\/evil\.example/],
    ['expired', (h, u) => h.forge({ iss: h.issuer, aud: 'app', exp: now() - 3600, code: 'c', state: stateOf(u) }), /exp: expired/],
    ['without exp', (h, u) => h.forge({ iss: h.issuer, aud: 'app', code: 'c', state: stateOf(u) }), /exp is missing/],
    [
      'unsigned (alg none)',
      async (h, u) =>
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: h.issuer, aud: 'app', exp: now() + 60, code: 'c', state: stateOf(u) })).toString('base64url')}.`,
      /unsigned \(alg none\)/,
    ],
    [
      'signed by a key not in the JWKS',
      async (h, u) => {
        const stranger = keyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
        return new SignJWT({ iss: h.issuer, aud: 'app', exp: now() + 60, code: 'c', state: stateOf(u) }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(stranger);
      },
      /signature: the ES256 signature does not match/,
    ],
    ['encrypted (a JWE)', async () => 'eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d', /encrypted \(a JWE\): oauthctl does not decrypt/],
  ];
  it.each(cases)('%s', async (_name, forge, message) => {
    hostile = await startHostile(forge);
    const r = await home.run(['login', '--issuer', hostile.issuer, '--client-id', 'app', '--response-mode', 'query.jwt', '--headless', '--username', 'u', '--password', 'p', '--timeout', '20']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/no token request was sent|does not decrypt/);
    expect(hostile.tokenRequests).toBe(0);
  });

  it('escape sequences in a forged response JWT never reach the terminal raw', async () => {
    hostile = await startHostile((h, u) => h.forge({ iss: h.issuer, aud: 'other', exp: now() + 60, code: '\u001b]52;c;cHduZWQ=\u0007\u001b[2J', state: stateOf(u) }));
    const r = await home.run(['login', '--issuer', hostile.issuer, '--client-id', 'app', '--response-mode', 'query.jwt', '--headless', '--username', 'u', '--password', 'p', '--timeout', '20']);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/\u001b/);
    expect(hostile.tokenRequests).toBe(0);
  });
});

describe('--fapi2 before any request but discovery: a server whose metadata cannot meet the profile', () => {
  it('is named in one line with what it lacks, exit 1', async () => {
    hostile = await startHostile(async () => 'unused');
    const r = await home.run(['login', '--issuer', hostile.issuer, ...KEY_LOGIN, '--fapi2', ...HEADLESS, '--quiet']);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/cannot meet the FAPI 2\.0 Security Profile: its metadata lacks pushed_authorization_request_endpoint \(PAR, 5\.3\.2\.2\), S256 in code_challenge_methods_supported/);
    expect(hostile.tokenRequests).toBe(0);
  });
});

describe('the consent page shows authorization_details escaped', () => {
  it('a hostile type or field is text, not markup', () => {
    const html = consentPage({
      interaction: 'i',
      csrfToken: 'c',
      clientName: 'App',
      clientId: 'app',
      username: 'alice',
      scopes: [],
      authorizationDetails: [{ type: '<script>alert(1)</script>', creditorName: '"><img src=x onerror=alert(1)>' }],
    });
    expect(html).not.toMatch(/<script>|<img/);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
  });
});

describe('the split flow (url --save, then exchange --from) with a response JWT and authorization details', () => {
  let auto: MockServer;
  beforeAll(async () => {
    auto = await startModernMock({ autoLogin: 'alice' }, (c) => ({
      ...c,
      authorization_details_types: ['payment_initiation'],
      clients: [...(c.clients ?? []), { client_id: 'rar-app', client_secret: 'rar-app-secret', redirect_uris: ['http://127.0.0.1/callback'] }],
    }));
  });
  afterAll(async () => {
    await auto.close();
  });

  /** `url --save` with JARM and details, then the browser's trip on "another machine": the redirect it ends in. */
  async function savedAndRedirected(file: string): Promise<string> {
    const saved = await home.run([
      'url',
      '--issuer',
      auto.issuer,
      '--client-id',
      'rar-app',
      '--client-secret',
      'rar-app-secret',
      '--pkce',
      '--scope',
      'photo',
      '--redirect-uri',
      'http://127.0.0.1:8765/callback',
      '--response-mode',
      'query.jwt',
      '--authorization-details',
      JSON.stringify(DETAILS),
      '--save',
      file,
      '--json',
    ]);
    expect(saved.code, saved.stderr).toBe(0);
    const content = readFileSync(file, 'utf8');
    expect(JSON.parse(content)).toMatchObject({ response_mode: 'query.jwt', authorization_details: DETAILS, auth_method: 'client_secret_basic' });
    expect(content).not.toContain('rar-app-secret');
    const location = (await fetch((JSON.parse(saved.stdout) as { url: string }).url, { redirect: 'manual' })).headers.get('location');
    expect(new URL(location!).searchParams.get('response')).toMatch(/^eyJ/);
    return location!;
  }

  it('the response JWT is verified before its code is used; the token request asks for the details again', async () => {
    const file = join(home.dir, 'jarm-flow.json');
    const location = await savedAndRedirected(file);
    auto.clearRequests();
    const r = await home.run(['exchange', '--from', file, '--redirect-uri', location, '--client-secret', 'rar-app-secret', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Authorization response JWT \(JARM\)[\s\S]*response JWT verified: \S+ signature valid/);
    expect(JSON.parse(param(requestsAt(auto, '/token')[0]?.form, 'authorization_details') ?? 'null')).toEqual(DETAILS);
    expect((JSON.parse(r.stdout) as Record<string, unknown>).authorization_details).toEqual(DETAILS);
  });

  it('a response JWT changed on the way is refused, and no token request is sent', async () => {
    const file = join(home.dir, 'jarm-forged.json');
    const location = new URL(await savedAndRedirected(file));
    const [header, claims, signature] = location.searchParams.get('response')!.split('.');
    const changed = { ...(JSON.parse(Buffer.from(claims!, 'base64url').toString()) as Record<string, unknown>), code: 'a-code-of-my-choosing' };
    location.searchParams.set('response', `${header}.${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature}`);
    auto.clearRequests();
    const r = await home.run(['exchange', '--from', file, '--redirect-uri', location.href, '--client-secret', 'rar-app-secret']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^oauthctl: error: the response JWT is refused: signature/);
    expect(requestsAt(auto, '/token')).toEqual([]);
  });
});
