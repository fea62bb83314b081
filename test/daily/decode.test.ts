import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { decodeToken } from '../../src/cli/inspect/decode.js';
import { runCli } from './helpers/io.js';
import { tokensFromMock, type MockTokens } from './helpers/mock-tokens.js';

let mock: MockServer;
let tokens: MockTokens;
let jwksServer: Server;
let jwksUrl: string;
let signOwn: (claims: Record<string, unknown>) => Promise<string>;

beforeAll(async () => {
  mock = await createMockServer({ signing_alg: 'RS256' }, { autoLogin: 'alice' });
  tokens = await tokensFromMock(mock);
  // A second key set of our own, for tokens with chosen claims (expired, not yet valid, wrong aud).
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'own-1', alg: 'ES256', use: 'sig' };
  jwksServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`;
  signOwn = (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'own-1' }).sign(privateKey);
});

afterAll(async () => {
  await mock?.close();
  await new Promise((resolve) => jwksServer?.close(resolve));
});

describe('decode', () => {
  it('shows header, claims and times in human and relative form', () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const token =
      ['{"alg":"RS256","kid":"k1"}', JSON.stringify({ sub: 'alice', exp: now / 1000 + 240, iat: now / 1000 - 7200, nbf: now / 1000 - 7200, auth_time: now / 1000 - 7300 })]
        .map((p) => Buffer.from(p).toString('base64url'))
        .join('.') + '.c2ln';
    const result = decodeToken(token, now);
    expect(result.header).toEqual({ alg: 'RS256', kid: 'k1' });
    expect(result.times.exp).toEqual({ value: now / 1000 + 240, date: '2026-01-01T12:04:00.000Z', relative: 'expires in 4 min' });
    expect(result.times.iat?.relative).toBe('issued 2 h ago');
    expect(result.times.nbf?.relative).toBe('valid since 2 h ago');
    expect(result.times.auth_time?.relative).toBe('authenticated 2 h ago');
    const expired = decodeToken(token, now + 3 * 3_600_000);
    expect(expired.times.exp?.relative).toBe('expired 2 h ago');
  });

  it('prints the decoded token on stdout, and --json as one document', async () => {
    const human = await runCli(['decode', tokens.access_token], {});
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('typ: at+jwt');
    expect(human.stdout).toContain(`iss: ${mock.issuer}`);
    expect(human.stdout).toMatch(/exp: \d+ = \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(expires in (59|60) min\)/);
    expect(human.stdout).toContain('Signature not verified');
    const json = await runCli(['decode', tokens.id_token!, '--json'], {});
    const doc = JSON.parse(json.stdout);
    expect(doc.claims).toMatchObject({ iss: mock.issuer, aud: 'photo-cli', sub: 'alice', nonce: 'n-0S6_WzA2Mj' });
    expect(doc.times.exp.relative).toMatch(/^expires in/);
  });

  it('reads TOKEN - from stdin, with an "Authorization: Bearer" prefix tolerated', async () => {
    const r = await runCli(['decode', '-', '--json'], {}, `Authorization: Bearer ${tokens.access_token}\n`);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).claims.client_id).toBe('photo-cli');
  });

  it('exits 2 with one line when the token is not a JWT', async () => {
    for (const token of ['opaque-token-value', 'a.b.c', 'a.b.c.d.e']) {
      const r = await runCli(['decode', token], {});
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^oauthctl: error: (not a JWT|this is an encrypted JWT)/);
    }
  });

  it('--verify finds the keys through the iss claim and discovery, and reports every check', async () => {
    const r = await runCli(['decode', tokens.id_token!, '--verify', '--audience', 'photo-cli', '--nonce', 'n-0S6_WzA2Mj'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Verification: valid');
    expect(r.stdout).toMatch(/✓ signature: RS256 signature valid \(key kid \S+ from http:\/\/127\.0\.0\.1:\d+\/jwks\)/);
    for (const check of ['iss', 'aud', 'exp', 'iat', 'nonce']) expect(r.stdout).toMatch(new RegExp(`✓ ${check}: `));
    expect(r.stdout).toContain('pin the issuer you trust with --issuer');
  });

  it('--verify --issuer pins the issuer; --json carries the checks', async () => {
    const r = await runCli(['decode', tokens.access_token, '--verify', '--issuer', mock.issuer, '--audience', mock.baseUrl, '--json'], {});
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.verification).toMatchObject({ ok: true, jwks_uri: `${mock.issuer}/jwks`, keys_from: 'issuer' });
    expect(doc.verification.checks.map((c: { name: string; status: string }) => `${c.name}:${c.status}`)).toEqual(['signature:pass', 'iss:pass', 'aud:pass', 'exp:pass', 'iat:pass']);
  });

  it('--verify exits 1 for a changed token, a wrong audience, a wrong issuer or a wrong nonce', async () => {
    const [h, p, s] = tokens.access_token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = [h, Buffer.from(JSON.stringify({ ...claims, scope: 'photo admin' })).toString('base64url'), s].join('.');
    const changed = await runCli(['decode', forged, '--verify', '--json'], {});
    expect(changed.code).toBe(1);
    expect(JSON.parse(changed.stdout).verification.checks[0]).toMatchObject({ name: 'signature', status: 'fail' });

    const aud = await runCli(['decode', tokens.access_token, '--verify', '--audience', 'https://other.example'], {});
    expect(aud.code).toBe(1);
    expect(aud.stdout).toMatch(/✗ aud: aud is http:\/\/127\.0\.0\.1:\d+\/api, which does not hold https:\/\/other\.example/);

    const nonce = await runCli(['decode', tokens.id_token!, '--verify', '--nonce', 'another'], {});
    expect(nonce.code).toBe(1);
    expect(nonce.stdout).toContain('✗ nonce: nonce differs');

    const iss = await runCli(['decode', tokens.access_token, '--verify', '--issuer', 'http://127.0.0.1:1', '--jwks-url', `${mock.issuer}/jwks`], {});
    expect(iss.code).toBe(1);
    expect(iss.stdout).toMatch(/✗ iss: iss is http:\/\/127\.0\.0\.1:\d+, expected http:\/\/127\.0\.0\.1:1/);
  });

  it('--verify --jwks-url checks exp and nbf: an expired token and one not yet valid exit 1', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await signOwn({ sub: 'x', exp: now - 7200, iat: now - 10800 });
    const r1 = await runCli(['decode', expired, '--verify', '--jwks-url', jwksUrl], {});
    expect(r1.code).toBe(1);
    expect(r1.stdout).toContain('✓ signature: ES256 signature valid (key kid own-1');
    expect(r1.stdout).toContain('✗ exp: expired 2 h ago');
    const early = await signOwn({ sub: 'x', nbf: now + 630, exp: now + 3600 });
    const r2 = await runCli(['decode', early, '--verify', '--jwks-url', jwksUrl], {});
    expect(r2.code).toBe(1);
    expect(r2.stdout).toContain('✗ nbf: not valid yet: becomes valid in 10 min');
    expect(r2.stdout).not.toContain('pin the issuer');
    // The mock's token against our keys: no key matches its kid.
    const other = await runCli(['decode', tokens.access_token, '--verify', '--jwks-url', jwksUrl], {});
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/✗ signature: no key from .* matches kid/);
  });

  it('--verify says which clock tolerance it applied; --clock-tolerance SECONDS changes it', async () => {
    const now = Math.floor(Date.now() / 1000);
    const justExpired = await signOwn({ sub: 'x', exp: now - 90, iat: now - 3600 });
    const strict = await runCli(['decode', justExpired, '--verify', '--jwks-url', jwksUrl], {});
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('exp, nbf and iat checked with 60 s of clock tolerance (--clock-tolerance SECONDS to change)');
    const lenient = await runCli(['decode', justExpired, '--verify', '--jwks-url', jwksUrl, '--clock-tolerance', '300', '--json'], {});
    expect(lenient.code).toBe(0);
    expect(JSON.parse(lenient.stdout).verification).toMatchObject({ ok: true, clock_tolerance: 300 });
    const bad = await runCli(['decode', justExpired, '--verify', '--clock-tolerance', 'soon'], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--clock-tolerance must be a whole number from 0 to 86400/);
  });

  it('--verify without iss and without --jwks-url is a usage error', async () => {
    const token = await signOwn({ sub: 'x' });
    const r = await runCli(['decode', token, '--verify'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no iss claim.*--jwks-url/);
  });
});
