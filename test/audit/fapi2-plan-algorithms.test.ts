// audit --plan fapi2, the cryptography of the FAPI 2.0 Security Profile (section 5.4.1), with a client
// whose key is RSA, so that RS256 client assertions and request objects can be offered: all refused by
// serve-mock --fapi2 (which signs PS256), all taken by the mock in its ordinary mode (which signs RS256).
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { memoryIO } from '../agent/helpers/io.js';
import { keyPairSync } from '../helpers/keys.js';

const PROBES = ['fapi2-metadata-algs', 'fapi2-signing-alg', 'fapi2-assertion-rs256', 'fapi2-request-object-rs256', 'fapi2-dpop-rs256'];
const rsa = keyPairSync('rsa', { modulusLength: 2048 });
const dir = mkdtempSync(join(tmpdir(), 'oauthctl-fapi2-algs-'));
const keyFile = join(dir, 'bank-rsa.pem');

async function startMock(extra: Record<string, unknown>): Promise<MockServer> {
  const jwk = { ...(await exportJWK(rsa.publicKey)), kid: 'bank-rsa' };
  return createMockServer(
    {
      users: [{ username: 'alice', password: 'wonderland' }],
      clients: [{ client_id: 'bank-rsa', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] }, redirect_uris: ['http://127.0.0.1/callback'], grant_types: ['authorization_code'] }],
      ...extra,
    },
    // serve-mock's default, RS256 (PS256 in FAPI 2.0 mode).
    { defaultSigningAlg: 'RS256', consent: false },
  );
}

async function audit(issuer: string, ...extra: string[]) {
  const io = memoryIO();
  const code = await run(
    [
      'audit',
      '--plan',
      'fapi2',
      '--json',
      '--issuer',
      issuer,
      '--client-id',
      'bank-rsa',
      '--auth-method',
      'private_key_jwt',
      '--signing-key',
      keyFile,
      '--signing-key-id',
      'bank-rsa',
      '--scope',
      'openid',
      '--username',
      'alice',
      '--password',
      'wonderland',
      '--only',
      PROBES.join(','),
      ...extra,
    ],
    io,
  );
  const report = JSON.parse(io.out()) as { probes: { id: string; status: string; detail: string }[]; summary: { plan: { requirements: { clause: string; text: string; status: string }[] } } };
  return { code, probes: Object.fromEntries(report.probes.map((p) => [p.id, p])), plan: report.summary.plan, err: io.err() };
}

describe('audit --plan fapi2: section 5.4.1 with an RSA client', () => {
  let fapi: MockServer;
  let plain: MockServer;
  beforeAll(async () => {
    writeFileSync(keyFile, rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600 });
    [fapi, plain] = await Promise.all([startMock({ security_profile: 'fapi2' }), startMock({ require_pushed_authorization_requests: true })]);
  });
  afterAll(async () => {
    await Promise.all([fapi.close(), plain.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('serve-mock --fapi2: every cryptography probe passes, the RS256 assertion, request object and proof refused', async () => {
    const r = await audit(fapi.issuer, '--fapi2');
    for (const id of PROBES) expect(r.probes[id]?.status, `${id}: ${r.probes[id]?.detail}\n${r.err}`).toBe('pass');
    expect(r.probes['fapi2-signing-alg']?.detail).toBe('signed the ID token PS256, the access token PS256, the authorization response PS256');
    expect(r.probes['fapi2-assertion-rs256']?.detail).toMatch(/^refused: HTTP 401 invalid_client/);
    expect(r.probes['fapi2-request-object-rs256']?.detail).toMatch(/invalid_request_object/);
    expect(r.probes['fapi2-dpop-rs256']?.detail).toBe('refused: HTTP 400 invalid_dpop_proof');
    expect(r.plan.requirements.filter((q) => q.clause === '5.4.1').map((q) => q.status)).toEqual(['met', 'met', 'met', 'met']);
  }, 60_000);

  it('the ordinary mock: what it signs RS256, announces RS256 and HS256, and takes RS256 from the client: each fails', async () => {
    const r = await audit(plain.issuer, '--dpop', '--client-assertion-audience', 'issuer');
    expect(r.code).toBe(1);
    for (const id of PROBES) expect(r.probes[id]?.status, `${id}: ${r.probes[id]?.detail}\n${r.err}`).toBe('fail');
    expect(r.probes['fapi2-signing-alg']?.detail).toMatch(/^signed the ID token RS256, the access token RS256, the authorization response RS256 \(allowed: PS256, ES256, EdDSA\)/);
    expect(r.probes['fapi2-metadata-algs']?.detail).toMatch(/token_endpoint_auth_signing_alg_values_supported lists RS256, RS384, RS512, PS384, PS512, ES384, ES512, HS256, HS384, HS512/);
    expect(r.plan.requirements.filter((q) => q.clause === '5.4.1').map((q) => q.status)).toEqual(['not met', 'not met', 'not met', 'not met']);
  }, 60_000);
});
