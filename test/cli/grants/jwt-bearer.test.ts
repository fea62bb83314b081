// Workload identity federation: the JWT bearer grant (RFC 7523 section 2.1) with a JWT the workload
// holds, by `oauthctl jwt-bearer` and by `oauthctl mcp --assertion`, against the mock trusting a
// workload issuer (config workload_issuers); refused for an issuer it does not trust.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, importJWK, SignJWT, type JWK } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { homeEnv, runCli } from '../../helpers/cli.js';
import { keyPairSync } from '../../helpers/keys.js';

const WORKLOAD_ISSUER = 'https://ci.example.test';
const pair = keyPairSync('ec', { namedCurve: 'P-256' });
const publicJwk = { ...(pair.publicKey.export({ format: 'jwk' }) as JWK), kid: 'ci-1', alg: 'ES256', use: 'sig' };
const privateJwk = { ...(pair.privateKey.export({ format: 'jwk' }) as JWK), kid: 'ci-1', alg: 'ES256' };

let home: string;
let env: Record<string, string>;
let mock: MockServer | undefined;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-wif-'));
  env = homeEnv(home);
  mock = await createMockServer({
    clients: [{ client_id: 'workload', client_secret: null, grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'], scopes: ['photo'] }],
    workload_issuers: [{ issuer: WORKLOAD_ISSUER, jwks: { keys: [publicJwk] } }],
  });
});
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  rmSync(home, { recursive: true, force: true });
});

async function workloadJwt(claims: { iss?: string; aud?: string; exp?: number } = {}): Promise<string> {
  const key = await importJWK(privateJwk, 'ES256');
  return new SignJWT({ jti: `j-${Math.random()}` })
    .setProtectedHeader({ alg: 'ES256', kid: 'ci-1', typ: 'JWT' })
    .setIssuer(claims.iss ?? WORKLOAD_ISSUER)
    .setSubject('repo:acme/app:ref:main')
    .setAudience(claims.aud ?? mock!.issuer)
    .setIssuedAt()
    .setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 300)
    .sign(key);
}

describe('oauthctl jwt-bearer', () => {
  it('a trusted workload issuer: a token for the workload, output as client-credentials', async () => {
    const file = join(home, 'token.jwt');
    writeFileSync(file, `${await workloadJwt()}\n`);
    const r = await runCli(['jwt-bearer', '--auth-url', mock!.authUrl, '--client-id', 'workload', '--assertion', `@${file}`, '--scope', 'photo', '--no-cache', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { access_token: string; scope: string };
    expect(body.scope).toBe('photo');
    expect(decodeJwt(body.access_token)).toMatchObject({ sub: 'repo:acme/app:ref:main', client_id: 'workload' });
    expect(r.stderr).toContain('grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer');
  });

  it('an untrusted issuer is refused: invalid_grant naming workload_issuers, exit 1', async () => {
    const r = await runCli(['jwt-bearer', '--auth-url', mock!.authUrl, '--client-id', 'workload', '--assertion', await workloadJwt({ iss: 'https://evil.example.test' }), '--no-cache'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/invalid_grant.*https:\/\/evil\.example\.test.* is not trusted: list a workload's issuer under .workload_issuers./);
  });

  it('an assertion for another audience, or expired, is refused', async () => {
    const wrong = await runCli(['jwt-bearer', '--auth-url', mock!.authUrl, '--client-id', 'workload', '--assertion', await workloadJwt({ aud: 'https://other.example' }), '--no-cache'], { env });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/invalid_grant.*aud/);
    const expired = await runCli(['jwt-bearer', '--auth-url', mock!.authUrl, '--client-id', 'workload', '--assertion', await workloadJwt({ exp: Math.floor(Date.now() / 1000) - 120 }), '--no-cache'], {
      env,
    });
    expect(expired.code).toBe(1);
    expect(expired.stderr).toMatch(/invalid_grant.*exp/);
  });

  it('an assertion that is no JWT: exit 2 in one line, nothing sent', async () => {
    const r = await runCli(['jwt-bearer', '--auth-url', mock!.authUrl, '--client-id', 'workload', '--assertion', 'not a jwt'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("oauthctl: error: --assertion is not a JWT (three base64url parts separated by dots) (give the workload's JWT, or @FILE to read it from a file)");
    expect(mock!.requests().filter((x) => x.path === '/token')).toEqual([]);
  });
});

describe('oauthctl mcp --assertion', () => {
  it("authorizes at the MCP server's authorization server with the workload's JWT and calls a tool", async () => {
    const r = await runCli(['mcp', `${mock!.baseUrl}/mcp`, 'tools/call', 'whoami', '--client-id', 'workload', '--assertion', await workloadJwt(), '--no-cache', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('repo:acme/app:ref:main');
    expect(r.stderr).toContain('Token request (RFC 7523 section 2.1; workload identity federation)');
    expect(r.stderr).toMatch(/the credentials of client workload \(workload assertion\) go to/);
  });
});
