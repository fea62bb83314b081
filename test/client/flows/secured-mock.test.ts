// The client's JWT client authentication, request objects, resource indicators and mutual
// TLS against the built-in mock (fixtures/mock/modern.jsonc), over real HTTP(S); the BUILT CLI is run,
// and what the mock really received is read from its request log.
import { createPrivateKey } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../../src/mock/index.js';
import {
  cliHome,
  CSJWT_SECRET,
  FIXTURE_CERT,
  FIXTURE_KEY,
  FIXTURE_KID,
  HEADLESS,
  jwt,
  makeClientCa,
  param,
  readText,
  requestsAt,
  startModernMock,
  x5t,
  type ClientCa,
  type CliHome,
} from '../helpers/modern-mock.js';
import { keyPairSync } from '../../helpers/keys.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

let mock: MockServer;
let home: CliHome;
let jwkWithKid: string;
let jwkWithoutKid: string;
let strangerKey: string;
beforeAll(async () => {
  mock = await startModernMock();
  home = cliHome();
  const jwk = createPrivateKey(readText(FIXTURE_KEY)).export({ format: 'jwk' });
  jwkWithKid = join(home.dir, 'photo-jwt.jwk.json');
  writeFileSync(jwkWithKid, JSON.stringify({ ...jwk, kid: FIXTURE_KID, alg: 'ES256' }), { mode: 0o600 });
  jwkWithoutKid = join(home.dir, 'photo-jwt.nokid.jwk.json');
  writeFileSync(jwkWithoutKid, JSON.stringify(jwk), { mode: 0o600 });
  strangerKey = join(home.dir, 'stranger.jwk.json');
  writeFileSync(strangerKey, JSON.stringify({ ...keyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), kid: FIXTURE_KID }), { mode: 0o600 });
});
afterAll(async () => {
  await mock.close();
  home.remove();
});

/** A headless login against the mock (no cache); the token response, and the last token request the mock logged. */
async function login(...args: string[]) {
  mock.clearRequests();
  const r = await home.run(['login', '--issuer', mock.issuer, '--scope', 'openid photo', ...HEADLESS, '--no-cache', '--json', '--quiet', ...args]);
  const tokenRequest = requestsAt(mock, '/token').at(-1);
  return { ...r, tokens: r.code === 0 ? (JSON.parse(r.stdout) as Record<string, string>) : {}, tokenRequest };
}

/** The client assertion of a logged token request: its header and claims, after checking its type. */
function assertionOf(form: Record<string, string | string[]> | undefined) {
  expect(param(form, 'client_assertion_type')).toBe(JWT_BEARER);
  expect(form).not.toHaveProperty('client_secret');
  return jwt(param(form, 'client_assertion'));
}

describe('private_key_jwt against the mock (RFC 7523 section 2.2)', () => {
  it('PEM key: iss = sub = client_id, aud the token endpoint, a fresh jti, exp at most 60 s after iat', async () => {
    const first = await login('--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', FIXTURE_KEY);
    expect(first.code, first.stderr).toBe(0);
    expect(first.tokenRequest?.status).toBe(200);
    const { header, claims } = assertionOf(first.tokenRequest?.form);
    expect(header).toEqual({ alg: 'ES256', typ: 'JWT' });
    expect(claims).toMatchObject({ iss: 'photo-jwt', sub: 'photo-jwt', aud: `${mock.issuer}/token` });
    expect(Number(claims.exp) - Number(claims.iat)).toBeGreaterThan(0);
    expect(Number(claims.exp) - Number(claims.iat)).toBeLessThanOrEqual(60);
    const second = await login('--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', FIXTURE_KEY);
    expect(second.code, second.stderr).toBe(0);
    expect(assertionOf(second.tokenRequest?.form).claims.jti).not.toBe(claims.jti);
  });

  it('JWK key: its kid goes in the header; --signing-key-id names it for a JWK without one', async () => {
    const withKid = await login('--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', jwkWithKid);
    expect(withKid.code, withKid.stderr).toBe(0);
    expect(assertionOf(withKid.tokenRequest?.form).header).toEqual({ alg: 'ES256', typ: 'JWT', kid: FIXTURE_KID });
    const named = await login('--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', jwkWithoutKid, '--signing-key-id', FIXTURE_KID);
    expect(named.code, named.stderr).toBe(0);
    expect(assertionOf(named.tokenRequest?.form).header.kid).toBe(FIXTURE_KID);
  });

  it('a key the client did not register (same kid, forged): the mock answers invalid_client, the CLI exits 1 with one line', async () => {
    const r = await login('--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', strangerKey);
    expect(r.code).toBe(1);
    expect(r.tokenRequest?.status).toBe(401);
    expect(r.tokenRequest?.error).toBe('invalid_client');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^oauthctl: error: invalid_client: .*signature verification failed/);
    expect(r.stderr).toContain(
      `the client assertion went with aud ${mock.issuer}/token; a server that wants the other audience refuses it: try --client-assertion-audience issuer (aud ${mock.issuer})`,
    );
    expect(r.stdout).toBe('');
  });

  it('private_key_jwt without --signing-key exits 2 before any request', async () => {
    const r = await login('--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt');
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^oauthctl: error: --auth-method private_key_jwt needs --signing-key FILE/)]);
    expect(mock.requests()).toEqual([]);
  });
});

describe('client_secret_jwt against the mock (RFC 7523, HS256 keyed by the secret)', () => {
  it('aud is the token endpoint by default, the issuer with --client-assertion-audience issuer (the mock accepts both)', async () => {
    const plain = await login('--client-id', 'photo-csjwt', '--client-secret', CSJWT_SECRET, '--auth-method', 'client_secret_jwt');
    expect(plain.code, plain.stderr).toBe(0);
    const { header, claims } = assertionOf(plain.tokenRequest?.form);
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(claims).toMatchObject({ iss: 'photo-csjwt', sub: 'photo-csjwt', aud: `${mock.issuer}/token`, jti: expect.any(String) });
    expect(Number(claims.exp) - Number(claims.iat)).toBeLessThanOrEqual(60);
    const issuer = await login('--client-id', 'photo-csjwt', '--client-secret', CSJWT_SECRET, '--auth-method', 'client_secret_jwt', '--client-assertion-audience', 'issuer');
    expect(issuer.code, issuer.stderr).toBe(0);
    expect(assertionOf(issuer.tokenRequest?.form).claims.aud).toBe(mock.issuer);
  });

  it('a wrong secret: invalid_client, exit 1, and the secret itself is never sent', async () => {
    const r = await login('--client-id', 'photo-csjwt', '--client-secret', 'not-the-secret-of-photo-csjwt-at-all', '--auth-method', 'client_secret_jwt');
    expect(r.code).toBe(1);
    expect(r.tokenRequest?.error).toBe('invalid_client');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.stringify(r.tokenRequest)).not.toContain('not-the-secret');
  });
});

describe('signed request objects against the mock (RFC 9101)', () => {
  it('--jar by value: request= signed ES256 with typ oauth-authz-req+jwt, iss the client, aud the issuer', async () => {
    const r = await login('--client-id', 'photo-jar', '--signing-key', FIXTURE_KEY, '--jar');
    expect(r.code, r.stderr).toBe(0);
    const authorize = requestsAt(mock, '/authorize')[0]!;
    const { header, claims } = jwt(param(authorize.query, 'request'));
    expect(header).toMatchObject({ alg: 'ES256', typ: 'oauth-authz-req+jwt' });
    expect(claims).toMatchObject({ iss: 'photo-jar', aud: mock.issuer, client_id: 'photo-jar', response_type: 'code', scope: 'openid photo' });
    expect(claims.jti).toEqual(expect.any(String));
    expect(Number(claims.exp) - Number(claims.iat)).toBeLessThanOrEqual(300);
  });

  it('--jar --par: the request object goes in the push; the browser gets client_id and request_uri only', async () => {
    const r = await login('--client-id', 'photo-jar', '--signing-key', jwkWithKid, '--jar', '--par');
    expect(r.code, r.stderr).toBe(0);
    const push = requestsAt(mock, '/par')[0]!;
    expect(push.status).toBe(201);
    expect(jwt(param(push.form, 'request')).header).toEqual({ alg: 'ES256', typ: 'oauth-authz-req+jwt', kid: FIXTURE_KID });
    expect(Object.keys(requestsAt(mock, '/authorize')[0]!.query).sort()).toEqual(['client_id', 'request_uri']);
  });

  it('without --jar the client that must sign its requests is refused (exit 1); a forged request object too', async () => {
    const plain = await login('--client-id', 'photo-jar');
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/oauthctl: error: .*request object/i);
    const forged = await login('--client-id', 'photo-jar', '--signing-key', strangerKey, '--jar');
    expect(forged.code).toBe(1);
    expect(requestsAt(mock, '/token')).toEqual([]);
  });
});

describe('resource indicators against the mock (RFC 8707)', () => {
  it('--resource goes on the authorization and token requests; the access token has it as aud', async () => {
    const r = await login('--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', FIXTURE_KEY, '--resource', 'https://prints.example/api');
    expect(r.code, r.stderr).toBe(0);
    expect(param(requestsAt(mock, '/authorize')[0]!.query, 'resource')).toBe('https://prints.example/api');
    expect(param(r.tokenRequest?.form, 'resource')).toBe('https://prints.example/api');
    expect(jwt(r.tokens.access_token).claims.aud).toBe('https://prints.example/api');
  });

  it('a resource the server does not know: invalid_target, exit 1 with one line', async () => {
    const r = await login('--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', FIXTURE_KEY, '--resource', 'https://elsewhere.example/');
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^oauthctl: error: the authorization server answered invalid_target/)]);
  });
});

describe('mutual TLS against the mock with --tls (RFC 8705)', () => {
  let tlsMock: MockServer;
  let ca: ClientCa;
  let tlsHome: CliHome;
  let trust: Record<string, string>;
  beforeAll(async () => {
    ca = makeClientCa('photo-mtls');
    tlsMock = await startModernMock({ tls: true }, (config) => ({
      ...config,
      tls_client_auth_ca: ca.caFile,
      clients: [
        ...(config.clients ?? []),
        { client_id: 'photo-mtls', token_endpoint_auth_method: 'tls_client_auth', tls_client_auth_subject_dn: ca.subjectDn, redirect_uris: ['http://127.0.0.1/callback'] },
      ],
    }));
    tlsHome = cliHome();
    // The CLI trusts the mock's CA as a reader would: NODE_EXTRA_CA_CERTS with the --json line's ca_file.
    const caFile = join(tlsHome.dir, 'mock-ca.pem');
    writeFileSync(caFile, tlsMock.ca!);
    trust = { NODE_EXTRA_CA_CERTS: caFile };
  });
  afterAll(async () => {
    await tlsMock.close();
    ca.remove();
    tlsHome.remove();
  });

  const loginTls = (...args: string[]) => tlsHome.run(['login', '--issuer', tlsMock.issuer, '--scope', 'openid photo', ...HEADLESS, '--json', '--quiet', ...args], trust);

  it('tls_client_auth: a certificate of the CA with the subject DN; the token is bound to it and `call` presents it again', async () => {
    tlsMock.clearRequests();
    const r = await loginTls('--client-id', 'photo-mtls', '--auth-method', 'tls_client_auth', '--tls-cert', ca.certFile, '--tls-key', ca.keyFile);
    expect(r.code, r.stderr).toBe(0);
    const token = requestsAt(tlsMock, '/token')[0]!;
    expect(param(token.form, 'client_id')).toBe('photo-mtls');
    expect(token.form).not.toHaveProperty('client_secret');
    expect(token.form).not.toHaveProperty('client_assertion');
    expect(token.headers).not.toHaveProperty('authorization');
    const accessToken = (JSON.parse(r.stdout) as { access_token: string }).access_token;
    expect(jwt(accessToken).claims.cnf).toEqual({ 'x5t#S256': x5t(readText(ca.certFile)) });

    const called = await tlsHome.run(['call', `${tlsMock.baseUrl}/photos`, '--client-id', 'photo-mtls', '--issuer', tlsMock.issuer], trust);
    expect(called.code, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toHaveProperty('owner', 'alice');
    // The same token without the certificate: refused, it is bound to it (section 3).
    const unbound = await tlsHome.run(['call', `${tlsMock.baseUrl}/photos`, '--token', accessToken], trust);
    expect(unbound.code).toBe(1);
    expect(unbound.stderr).toMatch(/HTTP 401: invalid_token/);
  });

  it('logout after a tls_client_auth login revokes through a connection with the certificate, asks for no secret, and the token is refused afterwards', async () => {
    const r = await loginTls('--client-id', 'photo-mtls', '--auth-method', 'tls_client_auth', '--tls-cert', ca.certFile, '--tls-key', ca.keyFile);
    expect(r.code, r.stderr).toBe(0);
    const accessToken = (JSON.parse(r.stdout) as { access_token: string }).access_token;
    tlsMock.clearRequests();
    const out = await tlsHome.run(['logout', '--issuer', tlsMock.issuer, '--client-id', 'photo-mtls', '--json'], trust);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ forgotten: true, revoked: ['access_token'] });
    const [revocation] = requestsAt(tlsMock, '/revoke');
    expect(revocation?.status).toBe(200);
    expect(param(revocation?.form, 'client_id')).toBe('photo-mtls');
    expect(revocation?.form).not.toHaveProperty('client_secret');
    expect(revocation?.headers).not.toHaveProperty('authorization');
    const after = await tlsHome.run(['call', `${tlsMock.baseUrl}/photos`, '--token', accessToken], trust);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/HTTP 401: invalid_token/);
  });

  it('self_signed_tls_client_auth with the fixture certificate, and --dpop on top: cnf has both x5t#S256 and jkt', async () => {
    const r = await loginTls('--client-id', 'photo-self', '--auth-method', 'self_signed_tls_client_auth', '--tls-cert', FIXTURE_CERT, '--tls-key', FIXTURE_KEY, '--dpop', '--no-cache');
    expect(r.code, r.stderr).toBe(0);
    const cnf = jwt((JSON.parse(r.stdout) as { access_token: string }).access_token).claims.cnf as Record<string, string>;
    expect(cnf['x5t#S256']).toBe(x5t(readText(FIXTURE_CERT)));
    expect(cnf.jkt).toMatch(/^[\w-]{43}$/);
  });

  it('a certificate of another key for photo-self: invalid_client, exit 1', async () => {
    const r = await loginTls('--client-id', 'photo-self', '--auth-method', 'self_signed_tls_client_auth', '--tls-cert', ca.certFile, '--tls-key', ca.keyFile, '--no-cache');
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^oauthctl: error: invalid_client/)]);
  });

  it('a tls_* method without --tls-cert, or --tls-cert without --tls-key: exit 2, one line, nothing sent', async () => {
    tlsMock.clearRequests();
    const missing = await loginTls('--client-id', 'photo-mtls', '--auth-method', 'tls_client_auth');
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^oauthctl: error: --auth-method tls_client_auth needs --tls-cert FILE and --tls-key FILE/)]);
    const half = await loginTls('--client-id', 'photo-mtls', '--auth-method', 'tls_client_auth', '--tls-cert', ca.certFile);
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/^oauthctl: error: --tls-cert needs --tls-key/);
    expect(tlsMock.requests()).toEqual([]);
  });
});
