import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { FAKE_BROWSER, runCli } from '../../helpers/cli.js';

/**
 * ID token keys come only from a source the user named. `attacker` plays the issuer an ID token claims
 * for itself: its metadata and keys would make its own tokens verify, and it must receive nothing.
 */
let as: RecordingServer;
let attacker: RecordingServer;
let state: string;
let serverKey: CryptoKey;
let attackerKey: CryptoKey;

beforeAll(async () => {
  as = await startRecordingServer();
  attacker = await startRecordingServer();
  state = mkdtempSync(join(tmpdir(), 'oauthctl-idt-'));
  const server = await generateKeyPair('ES256');
  const forged = await generateKeyPair('ES256');
  serverKey = server.privateKey;
  attackerKey = forged.privateKey;
  serverJwks = { keys: [{ ...(await exportJWK(server.publicKey)), kid: 'server-1', alg: 'ES256', use: 'sig' }] };
  attackerJwks = { keys: [{ ...(await exportJWK(forged.publicKey)), kid: 'attacker-1', alg: 'ES256', use: 'sig' }] };
});
let serverJwks: unknown;
let attackerJwks: unknown;
afterAll(async () => {
  await as.close();
  await attacker.close();
  rmSync(state, { recursive: true, force: true });
});
beforeEach(() => {
  as.reset();
  attacker.reset();
  rmSync(join(state, 'oauthctl'), { recursive: true, force: true });
  // The attacker's issuer publishes metadata and keys for its own tokens.
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    attacker.documents.set(path, { body: { issuer: attacker.url, authorization_endpoint: `${attacker.url}/authorize`, token_endpoint: `${attacker.url}/token`, jwks_uri: `${attacker.url}/jwks` } });
  }
  attacker.documents.set('/jwks', { body: attackerJwks });
  as.documents.set('/keys', { body: serverJwks });
});

const NONCE = 'n-fixed-1';
function idToken(key: CryptoKey, kid: string, iss: string): Promise<string> {
  return new SignJWT({ nonce: NONCE, sub: 'alice' }).setProtectedHeader({ alg: 'ES256', kid }).setIssuer(iss).setAudience('photo-cli').setIssuedAt().setExpirationTime('5m').sign(key);
}
const unsigned = (iss: string) =>
  [{ alg: 'none' }, { iss, aud: 'photo-cli', sub: 'alice', nonce: NONCE, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 300 }]
    .map((p) => Buffer.from(JSON.stringify(p)).toString('base64url'))
    .join('.') + '.';

const login = (args: string[]) =>
  runCli(['login', '--auth-url', as.url, '--client-id', 'photo-cli', '--scope', 'openid', '--param', `nonce=${NONCE}`, '--timeout', '20', ...args], {
    env: { BROWSER: FAKE_BROWSER, XDG_STATE_HOME: state },
  });
const cached = () => {
  try {
    return readdirSync(join(state, 'oauthctl', 'tokens')).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
};

describe('ID token validation: keys only from a named source', () => {
  it("never fetches keys from the token's own iss: the login fails, nothing is cached, and the hint says what to do", async () => {
    as.token = { body: { access_token: 'at', token_type: 'Bearer', id_token: await idToken(attackerKey, 'attacker-1', attacker.url) } };
    const r = await login([]);
    expect(r.code).toBe(1);
    expect(attacker.requests).toEqual([]);
    expect(r.stderr).toMatch(/signature: cannot be checked: no keys are known/);
    expect(r.stderr).toMatch(/oauthctl: error: the ID token failed validation .*--issuer URL or --jwks-uri URL, or accept it unverified with --no-verify-id-token/);
    expect(r.stdout).toBe('');
    expect(cached()).toEqual([]);
  });

  it('alg none fails always, even with --no-verify-id-token', async () => {
    as.token = { body: { access_token: 'at', token_type: 'Bearer', id_token: unsigned(as.url) } };
    const r = await login(['--no-verify-id-token']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unsigned \(alg none\), which is never accepted/);
    expect(cached()).toEqual([]);
  });

  it('--no-verify-id-token accepts a signature that cannot be checked, and says so loudly', async () => {
    as.token = { body: { access_token: 'at', token_type: 'Bearer', id_token: await idToken(attackerKey, 'attacker-1', attacker.url) } };
    const r = await login(['--no-verify-id-token']);
    expect(r.code).toBe(0);
    expect(attacker.requests).toEqual([]);
    expect(r.stderr).toMatch(/warning: the ID token's signature is NOT verified \(--no-verify-id-token\)/);
    expect(cached()).toHaveLength(1);
  });

  it('--jwks-uri names the keys: a token signed with them passes, one signed by anyone else fails', async () => {
    as.token = { body: { access_token: 'at', token_type: 'Bearer', id_token: await idToken(serverKey, 'server-1', as.url) } };
    const ok = await login(['--jwks-uri', `${as.url}/keys`]);
    expect(ok.stderr).toMatch(/✓ signature: ES256 signature valid/);
    expect(ok.code).toBe(0);
    as.token = { body: { access_token: 'at', token_type: 'Bearer', id_token: await idToken(attackerKey, 'server-1', as.url) } };
    const forged = await login(['--jwks-uri', `${as.url}/keys`, '--no-verify-id-token']);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/signature does not match/);
  });

  it('the metadata of --auth-url names the keys, and its issuer is what iss must equal', async () => {
    as.documents.set('/.well-known/oauth-authorization-server', {
      body: { issuer: as.url, authorization_endpoint: `${as.url}/authorize`, token_endpoint: `${as.url}/token`, jwks_uri: `${as.url}/keys` },
    });
    as.token = { body: { access_token: 'at', token_type: 'Bearer', id_token: await idToken(serverKey, 'server-1', as.url) } };
    const r = await login([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/✓ signature: ES256 signature valid .*\/keys/);
    expect(r.stderr).toContain(`✓ iss: iss is ${as.url}`);
    as.token = { body: { access_token: 'at', token_type: 'Bearer', id_token: await idToken(serverKey, 'server-1', attacker.url) } };
    const wrongIss = await login([]);
    expect(wrongIss.code).toBe(1);
    expect(attacker.requests).toEqual([]);
  });
});
