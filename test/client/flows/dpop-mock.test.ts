// DPoP (RFC 9449) against the built-in mock (fixtures/mock/modern.jsonc, client photo-dpop),
// over real HTTP with the BUILT CLI: a login's cached key used by `call`, the key kept by
// `url --dpop --save` for `exchange --from`, and `call --token T --dpop-key FILE`.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../../src/mock/index.js';
import { cliHome, FIXTURE_KEY, header, HEADLESS, jwt, param, requestsAt, sha256, startModernMock, type CliHome } from '../helpers/modern-mock.js';
import { keyPairSync } from '../../helpers/keys.js';

let mock: MockServer;
let home: CliHome;
beforeAll(async () => {
  mock = await startModernMock({ autoLogin: 'alice' });
  home = cliHome();
});
afterAll(async () => {
  await mock.close();
  home.remove();
});

/** The proof of a logged request, checked against the request it came with; its header and claims. */
function proofOf(r: { method: string; path: string; headers: Record<string, string | string[]> }, issuer: string) {
  const proof = jwt(header(r as never, 'dpop'));
  expect(proof.header.typ).toBe('dpop+jwt');
  expect(proof.claims).toMatchObject({ htm: r.method, htu: `${issuer}${r.path}` });
  return proof;
}

const jktOf = (jwk: unknown) => calculateJwkThumbprint(jwk as JWK);

describe('login --dpop, then call with the cached key', () => {
  it('binds the token to the dpop_jkt sent; call sends Authorization: DPoP with a proof carrying ath, the same key', async () => {
    mock.clearRequests();
    const login = await home.run(['login', '--issuer', mock.issuer, '--client-id', 'photo-dpop', '--dpop', '--scope', 'photo', ...HEADLESS, '--json', '--quiet']);
    expect(login.code, login.stderr).toBe(0);
    const tokens = JSON.parse(login.stdout) as { access_token: string; token_type: string };
    expect(tokens.token_type).toBe('DPoP');
    const jkt = param(requestsAt(mock, '/authorize')[0]!.query, 'dpop_jkt');
    expect(jwt(tokens.access_token).claims.cnf).toEqual({ jkt });
    const tokenProof = proofOf(requestsAt(mock, '/token')[0]!, mock.issuer);
    expect(await jktOf(tokenProof.header.jwk)).toBe(jkt);

    const called = await home.run(['call', `${mock.baseUrl}/photos`, '--issuer', mock.issuer, '--client-id', 'photo-dpop']);
    expect(called.code, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toHaveProperty('owner', 'alice');
    const api = requestsAt(mock, '/api/photos')[0]!;
    expect(header(api, 'authorization')).toBe(`DPoP ${tokens.access_token}`);
    const apiProof = proofOf(api, mock.issuer);
    expect(apiProof.claims.ath).toBe(sha256(tokens.access_token));
    expect(await jktOf(apiProof.header.jwk)).toBe(jkt);
  });

  it('refresh of the cached login proves the same key; the new token stays bound to it', async () => {
    const login = await home.run(['login', '--issuer', mock.issuer, '--client-id', 'photo-dpop', '--dpop', '--scope', 'photo offline_access', ...HEADLESS, '--json', '--quiet']);
    expect(login.code, login.stderr).toBe(0);
    const jkt = (jwt((JSON.parse(login.stdout) as { access_token: string }).access_token).claims.cnf as { jkt: string }).jkt;
    mock.clearRequests();
    const refreshed = await home.run(['refresh', '--issuer', mock.issuer, '--client-id', 'photo-dpop', '--json']);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    const tokens = JSON.parse(refreshed.stdout) as { access_token: string; token_type: string };
    expect(tokens.token_type).toBe('DPoP');
    expect(jwt(tokens.access_token).claims.cnf).toEqual({ jkt });
    const request = requestsAt(mock, '/token')[0]!;
    expect(param(request.form, 'grant_type')).toBe('refresh_token');
    expect(await jktOf(proofOf(request, mock.issuer).header.jwk)).toBe(jkt);
  });
});

describe('url --dpop --save, then exchange --from (RFC 9449 section 10)', () => {
  it('keeps the DPoP key in the saved file (0600); the exchange proves it and the token is bound to the dpop_jkt sent', async () => {
    const file = join(home.dir, 'dpop-flow.json');
    const saved = await home.run(['url', '--issuer', mock.issuer, '--client-id', 'photo-dpop', '--dpop', '--scope', 'photo', '--save', file]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const flow = JSON.parse(readFileSync(file, 'utf8')) as { authorization_url: string; dpop_jwk: Record<string, string> };
    expect(flow.dpop_jwk.d).toMatch(/^[\w-]{43}$/);
    const jkt = new URL(flow.authorization_url).searchParams.get('dpop_jkt');
    expect(await jktOf({ kty: 'EC', crv: 'P-256', x: flow.dpop_jwk.x, y: flow.dpop_jwk.y })).toBe(jkt);

    // The browser's part: the auto-login mock redirects at once with the code.
    const redirectUrl = (await fetch(new URL(saved.stdout.trim()), { redirect: 'manual' })).headers.get('location')!;
    mock.clearRequests();
    const exchanged = await home.run(['exchange', '--from', file, '--redirect-url', redirectUrl, '--json']);
    expect(exchanged.code, exchanged.stderr).toBe(0);
    const tokens = JSON.parse(exchanged.stdout) as { access_token: string; token_type: string };
    expect(tokens.token_type).toBe('DPoP');
    expect(jwt(tokens.access_token).claims.cnf).toEqual({ jkt });
    expect(await jktOf(proofOf(requestsAt(mock, '/token')[0]!, mock.issuer).header.jwk)).toBe(jkt);

    // The exchange cached the login with that key: call keeps proving it.
    const called = await home.run(['call', `${mock.baseUrl}/photos`, '--issuer', mock.issuer, '--client-id', 'photo-dpop']);
    expect(called.code, called.stderr).toBe(0);
    expect(await jktOf(proofOf(requestsAt(mock, '/api/photos')[0]!, mock.issuer).header.jwk)).toBe(jkt);
  });

  it('a saved request whose key was swapped for another: the mock refuses the code (bound to the first key), exit 1', async () => {
    const file = join(home.dir, 'swapped-flow.json');
    const saved = await home.run(['url', '--issuer', mock.issuer, '--client-id', 'photo-dpop', '--dpop', '--scope', 'photo', '--save', file]);
    expect(saved.code, saved.stderr).toBe(0);
    const flow = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...flow, dpop_jwk: keyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) }), { mode: 0o600 });
    const redirectUrl = (await fetch(new URL(saved.stdout.trim()), { redirect: 'manual' })).headers.get('location')!;
    mock.clearRequests();
    const r = await home.run(['exchange', '--from', file, '--redirect-url', redirectUrl, '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^oauthctl: error: invalid_grant: .*dpop_jkt/m);
    expect(requestsAt(mock, '/token')[0]!.status).toBe(400);
  });

  it('a saved DPoP key that is not a private key (edited, truncated): exit 2 with one line, nothing sent, the file untouched', async () => {
    const file = join(home.dir, 'broken-flow.json');
    const saved = await home.run(['url', '--issuer', mock.issuer, '--client-id', 'photo-dpop', '--dpop', '--scope', 'photo', '--save', file]);
    expect(saved.code, saved.stderr).toBe(0);
    const flow = JSON.parse(readFileSync(file, 'utf8')) as { dpop_jwk: Record<string, string> };
    const { d: _private, ...publicOnly } = flow.dpop_jwk;
    const edited = JSON.stringify({ ...flow, dpop_jwk: publicOnly });
    writeFileSync(file, edited, { mode: 0o600 });
    const redirectUrl = (await fetch(new URL(saved.stdout.trim()), { redirect: 'manual' })).headers.get('location')!;
    mock.clearRequests();
    const r = await home.run(['exchange', '--from', file, '--redirect-url', redirectUrl]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^oauthctl: error: the saved request holds a DPoP key that cannot be read/)]);
    expect(requestsAt(mock, '/token')).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(edited);
  });

  it('url --dpop without --save or --dpop-key warns that the key is not kept', async () => {
    const r = await home.run(['url', '--issuer', mock.issuer, '--client-id', 'photo-dpop', '--dpop', '--scope', 'photo']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: the code will be bound to a fresh DPoP key that is not kept/);
  });
});

describe('call --token T --dpop-key FILE (RFC 9449 section 7.1)', () => {
  let nonceMock: MockServer;
  let keyFile: string;
  beforeAll(async () => {
    nonceMock = await startModernMock({ autoLogin: 'alice' }, (config) => ({ ...config, dpop_nonce: true }));
    keyFile = join(home.dir, 'dpop.jwk.json');
    writeFileSync(keyFile, JSON.stringify(keyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })), { mode: 0o600 });
  });
  afterAll(() => nonceMock.close());

  async function boundToken(server: MockServer, key: string): Promise<string> {
    const r = await home.run(['login', '--issuer', server.issuer, '--client-id', 'photo-dpop', '--dpop-key', key, '--scope', 'photo', ...HEADLESS, '--no-cache', '--json', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { access_token: string }).access_token;
  }

  it('a DPoP-bound token: 401 as Bearer, 200 as DPoP with a proof of the key and ath', async () => {
    const token = await boundToken(mock, FIXTURE_KEY);
    mock.clearRequests();
    const bearer = await home.run(['call', `${mock.baseUrl}/photos`, '--token', token]);
    expect(bearer.code).toBe(1);
    expect(bearer.stderr).toMatch(/^oauthctl: error: the API answered HTTP 401: invalid_token: .* \(the API wants DPoP: give --dpop-key FILE, the key the token is bound to\)$/m);
    const dpop = await home.run(['call', `${mock.baseUrl}/photos`, '--token', token, '--dpop-key', FIXTURE_KEY]);
    expect(dpop.code, dpop.stderr).toBe(0);
    expect(JSON.parse(dpop.stdout)).toHaveProperty('owner', 'alice');
    const [asBearer, asDpop] = requestsAt(mock, '/api/photos');
    expect(header(asBearer!, 'authorization')).toBe(`Bearer ${token}`);
    expect(header(asDpop!, 'authorization')).toBe(`DPoP ${token}`);
    const proof = proofOf(asDpop!, mock.issuer);
    expect(proof.claims.ath).toBe(sha256(token));
    expect(await jktOf(proof.header.jwk)).toBe((jwt(token).claims.cnf as { jkt: string }).jkt);
  });

  it("answers the resource server's DPoP-Nonce challenge with one retry carrying the nonce", async () => {
    const token = await boundToken(nonceMock, keyFile);
    nonceMock.clearRequests();
    const r = await home.run(['call', `${nonceMock.baseUrl}/me`, '--token', token, '--dpop-key', keyFile]);
    expect(r.code, r.stderr).toBe(0);
    const [challenged, retried] = requestsAt(nonceMock, '/api/me');
    expect(challenged!.status).toBe(401);
    expect(challenged!.error).toBe('use_dpop_nonce');
    expect(retried!.status).toBe(200);
    expect(proofOf(retried!, nonceMock.issuer).claims.nonce).toEqual(expect.any(String));
    expect(requestsAt(nonceMock, '/api/me')).toHaveLength(2);
  });

  it('another key than the one the token is bound to: refused, exit 1; a key that is not P-256: exit 2, one line', async () => {
    const token = await boundToken(mock, FIXTURE_KEY);
    const wrong = await home.run(['call', `${mock.baseUrl}/photos`, '--token', token, '--dpop-key', keyFile]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/HTTP 401/);
    const rsa = join(home.dir, 'rsa.pem');
    writeFileSync(rsa, keyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, { mode: 0o600 });
    const bad = await home.run(['call', `${mock.baseUrl}/photos`, '--token', token, '--dpop-key', rsa]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^oauthctl: error: --dpop-key ".*" is not a P-256 key/)]);
  });
});
