import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { execApiVersion, formatToken } from '../../../src/cli/token/token-formats.js';
import type { CachedTokens } from '../../../src/store/token-cache.js';

const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
const entry = (extra: Partial<CachedTokens> = {}): CachedTokens => ({
  version: 1,
  token_endpoint: 'https://as.example/token',
  client_id: 'cli',
  auth_method: 'none',
  access_token: 'at-1',
  token_type: 'Bearer',
  obtained_at: 1_800_000_000,
  expires_at: 1_800_003_600,
  scope: 'openid photo',
  id_token: jwt({ sub: 'alice', exp: 1_800_001_800 }),
  ...extra,
});

describe('token --format', () => {
  it('header is the RFC 6750 header line', () => {
    expect(formatToken('header', entry())).toBe('Authorization: Bearer at-1\n');
  });

  it('header refuses a DPoP-bound token in one line, saying why and what to use', () => {
    for (const bound of [entry({ token_type: 'DPoP' }), entry({ client_keys: { dpop_jwk: { kty: 'EC' } } })]) {
      const err = (() => {
        try {
          formatToken('header', bound);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toMatch(/DPoP-bound.*each request needs a DPoP proof/);
      expect((err as UsageError).hint).toMatch(/oauthctl call/);
    }
  });

  it('exec-credential carries the ID token and its own expiry by default (as kubelogin), the access token on request', () => {
    const id = JSON.parse(formatToken('exec-credential', entry(), { token: 'id_token' })) as { status: Record<string, string> };
    expect(id.status).toEqual({ token: entry().id_token, expirationTimestamp: '2027-01-15T08:30:00Z' });
    const access = JSON.parse(formatToken('exec-credential', entry(), { token: 'access_token' })) as { status: Record<string, string> };
    expect(access.status).toEqual({ token: 'at-1', expirationTimestamp: '2027-01-15T09:00:00Z' });
    expect(() => formatToken('exec-credential', entry({ id_token: undefined as unknown as string }), { token: 'id_token' })).toThrow(/no ID token is cached/);
  });

  it('the ExecCredential API version: KUBERNETES_EXEC_INFO first, then the flag, then v1beta1; anything else is refused', () => {
    expect(execApiVersion({ token: 'id_token' })).toBe('client.authentication.k8s.io/v1beta1');
    expect(execApiVersion({ token: 'id_token', apiVersion: 'client.authentication.k8s.io/v1' })).toBe('client.authentication.k8s.io/v1');
    const info = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential' });
    expect(execApiVersion({ token: 'id_token', apiVersion: 'client.authentication.k8s.io/v1', execInfo: info })).toBe('client.authentication.k8s.io/v1beta1');
    expect(() => execApiVersion({ token: 'id_token', execInfo: 'not json' })).toThrow(UsageError);
    expect(() => execApiVersion({ token: 'id_token', apiVersion: 'v1alpha1' })).toThrow(/not supported/);
  });
});

describe('token --format header against a forged token', () => {
  it('refuses a token that is not a b64token: a line break would forge header lines for curl -H @-', () => {
    for (const forged of ['at\r\nX-Evil: 1', 'at\nHost: evil.example', 'at b', 'at\u001b[2J']) {
      expect(() => formatToken('header', entry({ access_token: forged }))).toThrow(/not a b64token/);
    }
    expect(formatToken('header', entry({ access_token: 'abc-._~+/==' }))).toBe('Authorization: Bearer abc-._~+/==\n');
  });

  it('json and exec-credential escape whatever the token holds', () => {
    const forged = 'at\n"}\u001b';
    expect(JSON.parse(formatToken('json', entry({ access_token: forged }))).access_token).toBe(forged);
    expect(formatToken('json', entry({ access_token: forged }))).not.toMatch(/\u001b/);
  });
});
