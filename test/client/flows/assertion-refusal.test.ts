// A refused client assertion says what else the server may want: the other audience
// (--client-assertion-audience), and a signing key without a kid. Against the mock of
// fixtures/mock/modern.jsonc in-process; the mock accepts its issuer, its token endpoint URL and the
// URL of the endpoint called (RFC 7523 section 3), nothing else.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertionRefusalHint } from '../../../src/client/flows/assertion-refusal.js';
import { loadSigningKey } from '../../../src/client/flows/keys.js';
import { run } from '../../../src/cli/program/main.js';
import type { MockServer } from '../../../src/mock/index.js';
import { memoryIO } from '../../helpers/io.js';
import { CSJWT_SECRET, FIXTURE_KEY, HEADLESS, jwt, param, requestsAt, startModernMock } from '../helpers/modern-mock.js';
import { homeEnv } from '../../helpers/cli.js';

let mock: MockServer;
let home: string;
beforeAll(async () => {
  mock = await startModernMock();
  home = mkdtempSync(join(tmpdir(), 'oauthctl-assertion-'));
});
afterAll(async () => {
  await mock.close();
  rmSync(home, { recursive: true, force: true });
});

async function login(...args: string[]) {
  const io = memoryIO({ ...homeEnv(home), NO_COLOR: '1' });
  const code = await run(['login', '--issuer', mock.issuer, '--scope', 'openid', ...HEADLESS, '--no-cache', ...args], io);
  return { code, err: io.err() };
}

describe('the hint of a refused client assertion', () => {
  const TOKEN = 'https://as.example/oauth2/token';
  it('names the other audience: the issuer after the token endpoint, the token endpoint after anything else', () => {
    expect(assertionRefusalHint({ clientId: 'c', authMethod: 'client_secret_jwt', clientSecret: 's', tokenEndpoint: TOKEN, assertionAudience: TOKEN, issuer: 'https://as.example' })).toBe(
      `the client assertion went with aud ${TOKEN}; a server that wants the other audience refuses it: try --client-assertion-audience issuer (aud https://as.example)`,
    );
    expect(assertionRefusalHint({ clientId: 'c', authMethod: 'client_secret_jwt', clientSecret: 's', tokenEndpoint: TOKEN, assertionAudience: 'https://as.example' })).toMatch(
      /try --client-assertion-audience token-endpoint \(aud https:\/\/as\.example\/oauth2\/token\)$/,
    );
    expect(assertionRefusalHint({ clientId: 'c', authMethod: 'client_secret_basic', clientSecret: 's', tokenEndpoint: TOKEN })).toBeUndefined();
  });

  it('names a PEM key without a kid as a possible cause', async () => {
    const signingKey = await loadSigningKey(FIXTURE_KEY);
    expect(signingKey.kid).toBeUndefined();
    expect(assertionRefusalHint({ clientId: 'c', authMethod: 'private_key_jwt', signingKey, tokenEndpoint: TOKEN, assertionAudience: TOKEN })).toMatch(
      /; the signing key has no kid \(a PEM file carries none\), and a server that picks the client key by kid refuses that: give --signing-key-id KID$/,
    );
  });

  it('against the mock: an audience it does not accept is refused, and the one line says what to try', async () => {
    const r = await login('--client-id', 'photo-csjwt', '--client-secret', CSJWT_SECRET, '--auth-method', 'client_secret_jwt', '--client-assertion-audience', 'https://elsewhere.example/');
    expect(r.code).toBe(1);
    expect(
      r.err
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('oauthctl: error:')),
    ).toEqual([
      expect.stringContaining(
        `the client assertion went with aud https://elsewhere.example/; a server that wants the other audience refuses it: try --client-assertion-audience token-endpoint (aud ${mock.issuer}/token)`,
      ),
    ]);
    const accepted = await login('--client-id', 'photo-csjwt', '--client-secret', CSJWT_SECRET, '--auth-method', 'client_secret_jwt');
    expect(accepted.code, accepted.err).toBe(0);
  });

  it('a PAR endpoint that refuses the assertion gets the same hint', async () => {
    const r = await login('--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', FIXTURE_KEY, '--par', '--client-assertion-audience', 'https://elsewhere.example/');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /oauthctl: error: the PAR endpoint answered HTTP 401 invalid_client.*try --client-assertion-audience token-endpoint \(aud http:\/\/127\.0\.0\.1:\d+\/token\); the signing key has no kid/,
    );
  });

  it('the default aud (the token endpoint URL) is accepted by the mock at its PAR endpoint too (RFC 9126 section 2)', async () => {
    mock.clearRequests();
    const r = await login('--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', FIXTURE_KEY, '--par');
    expect(r.code, r.err).toBe(0);
    const pushed = requestsAt(mock, '/par')[0];
    expect(pushed?.status).toBe(201);
    expect(jwt(param(pushed?.form, 'client_assertion')).claims.aud).toBe(`${mock.issuer}/token`);
  });
});
