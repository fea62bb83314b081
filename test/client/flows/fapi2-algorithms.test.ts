// --fapi2 and the FAPI 2.0 Security Profile section 5.4.1 (PS256, ES256 or EdDSA with Ed25519; no
// RS256): the BUILT CLI signs with an RSA key PS256 against the mock in FAPI 2.0 mode, refuses a key of
// another algorithm before any request (exit 2), names a server whose metadata announces no allowed
// algorithm (exit 1, nothing but discovery sent), and refuses ID tokens and JWT responses signed RS256.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { checkIdToken } from '../../../src/cli/login/after-login.js';
import { authorizationResponseParams } from '../../../src/client/responses/jarm.js';
import { createHttpClient } from '../../../src/client/http/http.js';
import type { FlowConfig } from '../../../src/client/flows/flow-config.js';
import { createRenderer } from '../../../src/output/render.js';
import { memoryIO } from '../../agent/helpers/io.js';
import { keyPairSync } from '../../helpers/keys.js';
import { cliHome, HEADLESS, jwt, param, requestsAt, type CliHome } from '../helpers/modern-mock.js';

const REDIRECT = 'http://127.0.0.1/callback';
const rsa = keyPairSync('rsa', { modulusLength: 2048 });

let mock: MockServer;
let home: CliHome;
const file = (name: string, text: string) => {
  const path = join(home.dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};
let rsaPem: string;

beforeAll(async () => {
  home = cliHome();
  rsaPem = file('rsa.pem', rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  mock = await createMockServer(
    {
      security_profile: 'fapi2',
      users: [{ username: 'alice', password: 'wonderland' }],
      clients: [{ client_id: 'bank-rsa', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ ...(await exportJWK(rsa.publicKey)), kid: 'bank-rsa' }] }, redirect_uris: [REDIRECT] }],
    },
    // serve-mock's default: RS256 where the configuration names none, which FAPI 2.0 mode makes PS256.
    { defaultSigningAlg: 'RS256', consent: false },
  );
});
afterAll(async () => {
  await mock.close();
  home.remove();
});

const login = (...args: string[]) =>
  home.run(['login', '--fapi2', '--issuer', mock.issuer, '--client-id', 'bank-rsa', '--auth-method', 'private_key_jwt', '--scope', 'openid', ...HEADLESS, '--no-cache', ...args]);

// Spawned CLIs and RSA keys on a loaded 2-core machine: a bound well above their usual few seconds.
describe('--fapi2 with an RSA key', { timeout: 60_000 }, () => {
  it('signs client assertions and request objects PS256; the mock signs the ID token PS256', async () => {
    mock.clearRequests();
    const r = await login('--signing-key', rsaPem, '--signing-key-id', 'bank-rsa', '--jar', '--json');
    expect(r.code, r.stderr).toBe(0);
    const par = requestsAt(mock, '/par')[0];
    expect(jwt(param(par?.form, 'client_assertion')).header.alg).toBe('PS256');
    expect(jwt(param(par?.form, 'request')).header.alg).toBe('PS256');
    expect(jwt(param(requestsAt(mock, '/token')[0]?.form, 'client_assertion')).header.alg).toBe('PS256');
    expect(jwt((JSON.parse(r.stdout) as { id_token: string }).id_token).header.alg).toBe('PS256');
  });

  it.each([
    [
      'a JWK that names RS256',
      () => file('rs256.jwk', JSON.stringify({ ...rsa.privateKey.export({ format: 'jwk' }), alg: 'RS256' })),
      /the key's algorithm is RS256; FAPI 2\.0 Security Profile section 5\.4\.1 allows only PS256, ES256, EdDSA/,
    ],
    ['a P-384 key (ES384)', () => file('p384.pem', keyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string), /the key's algorithm is ES384/],
    [
      'an RSA key of 1024 bits',
      () => file('rsa1024.pem', keyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
      /the RSA key has 1024 bits; .*2048 at least/,
    ],
  ])('%s: one line, exit 2, nothing sent', async (_name, make, message) => {
    mock.clearRequests();
    const r = await login('--signing-key', make());
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^oauthctl: error: --fapi2: --signing-key /)]);
    expect(r.stderr).toMatch(message);
    expect(mock.requests()).toEqual([]);
  });

  it('without --fapi2 the same RSA key signs RS256, as before', async () => {
    const { loadSigningKey } = await import('../../../src/client/flows/keys.js');
    expect((await loadSigningKey(rsaPem)).alg).toBe('RS256');
  });
});

/** An authorization server that answers only its metadata: the metadata of the mock with `change` applied. */
async function metadataServer(change: Record<string, unknown>): Promise<{ issuer: string; paths: string[]; close(): Promise<void> }> {
  const paths: string[] = [];
  const base = (await (await fetch(`${mock.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    if (!req.url?.startsWith('/.well-known/')) return res.writeHead(500).end();
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const rebased = JSON.parse(JSON.stringify(base).replaceAll(mock.issuer, issuer)) as Record<string, unknown>;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...rebased, ...change }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('--fapi2 against metadata that announces no FAPI 2.0 algorithm', { timeout: 60_000 }, () => {
  it('names each list in one line, exit 1, and sends nothing but discovery (no ES256 proof to an RS256-only server)', async () => {
    const hostile = await metadataServer({
      dpop_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_signing_alg_values_supported: ['RS256'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    try {
      const r = await home.run([
        'login',
        '--fapi2',
        '--issuer',
        hostile.issuer,
        '--client-id',
        'bank-rsa',
        '--auth-method',
        'private_key_jwt',
        '--signing-key',
        rsaPem,
        '--scope',
        'openid',
        ...HEADLESS,
        '--quiet',
      ]);
      expect(r.code).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /cannot meet the FAPI 2\.0 Security Profile: its metadata lacks a FAPI 2\.0 algorithm \(PS256, ES256, EdDSA\) in dpop_signing_alg_values_supported \(5\.4\.1\), a FAPI 2\.0 algorithm \(PS256, ES256, EdDSA\) in token_endpoint_auth_signing_alg_values_supported \(5\.4\.1\), a FAPI 2\.0 algorithm \(PS256, ES256, EdDSA\) in id_token_signing_alg_values_supported \(5\.4\.1\)/,
      );
      expect(hostile.paths.every((p) => p.startsWith('/.well-known/'))).toBe(true);
    } finally {
      await hostile.close();
    }
  });

  it("names a list that has allowed algorithms but not the client's own", async () => {
    const hostile = await metadataServer({ token_endpoint_auth_signing_alg_values_supported: ['ES256'] });
    try {
      const r = await home.run([
        'login',
        '--fapi2',
        '--issuer',
        hostile.issuer,
        '--client-id',
        'bank-rsa',
        '--auth-method',
        'private_key_jwt',
        '--signing-key',
        rsaPem,
        '--scope',
        'openid',
        ...HEADLESS,
        '--quiet',
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/its metadata lacks PS256, the algorithm of its client assertions, in token_endpoint_auth_signing_alg_values_supported \(5\.4\.1\)/);
    } finally {
      await hostile.close();
    }
  });
});

describe('--fapi2: ID tokens and JWT authorization responses signed RS256 are refused', { timeout: 60_000 }, () => {
  let jwksServer: Server;
  let jwksUri: string;
  const signer = keyPairSync('rsa', { modulusLength: 2048 });
  beforeAll(async () => {
    const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(signer.publicKey)), kid: 'k1', alg: 'RS256' }] });
    jwksServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks`;
  });
  afterAll(() => new Promise<void>((resolve) => jwksServer.close(() => resolve())));

  const issuer = 'https://as.example';
  const config = (fapi2: boolean) =>
    ({ fapi2, issuer, clientId: 'app', scopes: ['openid'], extraParams: {}, endpoints: { jwks_uri: jwksUri }, responseMode: 'jwt', state: 's' }) as unknown as FlowConfig;
  const signed = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuedAt().setExpirationTime('1m').sign(signer.privateKey);

  it('an RS256 ID token: the validation fails naming section 5.4.1; without --fapi2 it passes', async () => {
    const idToken = await signed({ iss: issuer, aud: 'app', sub: 'alice' });
    const http = createHttpClient();
    try {
      const io = memoryIO();
      const input = (fapi2: boolean) => ({ config: config(fapi2), tokens: { id_token: idToken }, http, renderer: createRenderer(io) }) as unknown as Parameters<typeof checkIdToken>[0];
      await expect(checkIdToken(input(true))).rejects.toThrow(
        /the ID token failed validation \(signature\): the ID token is signed RS256; FAPI 2\.0 Security Profile section 5\.4\.1 allows only PS256, ES256, EdDSA/,
      );
      expect((await checkIdToken(input(false)))?.every((c) => c.status !== 'fail')).toBe(true);
    } finally {
      await http.close();
    }
  });

  it('an RS256 JWT authorization response (JARM): refused before its code is used', async () => {
    const response = await signed({ iss: issuer, aud: 'app', code: 'c', state: 's' });
    const http = createHttpClient();
    try {
      const capture = { via: 'query' as const, params: { response }, url: `${REDIRECT}?response=${response}`, method: 'GET' as const };
      await expect(authorizationResponseParams(http, config(true), capture, createRenderer(memoryIO()))).rejects.toThrow(
        /the response JWT is signed RS256; FAPI 2\.0 Security Profile section 5\.4\.1 allows only PS256, ES256, EdDSA/,
      );
      expect((await authorizationResponseParams(http, config(false), capture, createRenderer(memoryIO()))).code).toBe('c');
    } finally {
      await http.close();
    }
  });
});
