import { createHash } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';
import type { AccessTokenFormat, MockConfigInput, MockServerOptions } from '../../src/mock/index.js';
import { basic, pkceTokens, postForm, startMock as startDefaultMock } from './helpers.js';

const bearer = (token: unknown) => ({ authorization: `Bearer ${String(token)}` });

// Every rule of the API, introspection and revocation holds for both access token formats.
describe.each<AccessTokenFormat>(['jwt', 'opaque'])('access tokens in format %s', (format) => {
  const startMock = (config?: MockConfigInput, options?: MockServerOptions) => startDefaultMock(format === 'jwt' ? config : { ...config, access_token_format: format }, options);

  describe('protected API at {base_url} (RFC 6750)', () => {
    it('GET /photos answers JSON with scope photo', async () => {
      const server = await startMock(undefined, { autoLogin: 'alice' });
      const tokens = await pkceTokens(server);
      const res = await fetch(`${server.baseUrl}/photos`, { headers: bearer(tokens.access_token) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as { owner: string; photos: unknown[] };
      expect(body.owner).toBe('alice');
      expect(body.photos.length).toBeGreaterThan(0);
    });

    it('without a token: 401 with the realm and the resource metadata (RFC 9728 section 5.1), no error code', async () => {
      const server = await startMock();
      const res = await fetch(`${server.baseUrl}/photos`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="oauthctl-mock", resource_metadata="${server.authUrl}/.well-known/oauth-protected-resource/api"`);
    });

    it('a token in the query string is not looked at', async () => {
      const server = await startMock(undefined, { autoLogin: 'alice' });
      const tokens = await pkceTokens(server);
      const res = await fetch(`${server.baseUrl}/photos?access_token=${String(tokens.access_token)}`);
      expect(res.status).toBe(401);
    });

    it('a bad token: 401 invalid_token', async () => {
      const server = await startMock(undefined, { autoLogin: 'alice' });
      const tokens = await pkceTokens(server);
      const tampered = `${String(tokens.access_token).slice(0, -4)}AAAA`;
      for (const token of ['nonsense', tampered]) {
        const res = await fetch(`${server.baseUrl}/photos`, { headers: bearer(token) });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="oauthctl-mock", error="invalid_token", error_description="/);
      }
    });

    it('an expired token: 401 invalid_token saying so', async () => {
      let now = Date.now();
      const server = await startMock(undefined, { autoLogin: 'alice', now: () => now });
      const tokens = await pkceTokens(server);
      now += 3601_000;
      const res = await fetch(`${server.baseUrl}/me`, { headers: bearer(tokens.access_token) });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/expired/);
    });

    it('a token without the scope: 403 insufficient_scope naming it', async () => {
      const server = await startMock(undefined, { autoLogin: 'alice' });
      const tokens = await pkceTokens(server, 'openid');
      const res = await fetch(`${server.baseUrl}/photos`, { headers: bearer(tokens.access_token) });
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope".*scope="photo"/);
      const me = await fetch(`${server.baseUrl}/me`, { headers: bearer(tokens.access_token) });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ sub: 'alice', client_id: 'photo-cli', scope: 'openid' });
    });

    it('GET /userinfo needs openid and releases claims by scope', async () => {
      const server = await startMock(undefined, { autoLogin: 'alice' });
      const noOpenid = await pkceTokens(server, 'photo');
      expect((await fetch(`${server.authUrl}/userinfo`, { headers: bearer(noOpenid.access_token) })).status).toBe(403);
      const tokens = await pkceTokens(server, 'openid profile');
      const res = await fetch(`${server.authUrl}/userinfo`, { headers: bearer(tokens.access_token) });
      expect(await res.json()).toEqual({ sub: 'alice', name: 'Alice Liddell', given_name: 'Alice', family_name: 'Liddell', preferred_username: 'alice' });
    });
  });

  describe('introspection (RFC 7662) and revocation (RFC 7009)', () => {
    const web = { authorization: basic('photo-web', 'photo-web-secret') };

    it('introspects access and refresh tokens for a confidential client', async () => {
      const server = await startMock(undefined, { autoLogin: 'alice' });
      const tokens = await pkceTokens(server, 'photo offline_access');
      const access = await postForm(`${server.authUrl}/introspect`, { token: String(tokens.access_token) }, web);
      expect(access.body).toMatchObject({ active: true, client_id: 'photo-cli', scope: 'photo offline_access', sub: 'alice', username: 'alice', token_type: 'Bearer' });
      expect(access.headers.get('cache-control')).toBe('no-store');
      const refresh = await postForm(`${server.authUrl}/introspect`, { token: String(tokens.refresh_token), token_type_hint: 'refresh_token' }, web);
      expect(refresh.body).toMatchObject({ active: true, token_type: 'refresh_token', client_id: 'photo-cli' });
      expect((await postForm(`${server.authUrl}/introspect`, { token: 'garbage' }, web)).body).toEqual({ active: false });
    });

    it('introspection needs an authenticated confidential client', async () => {
      const server = await startMock();
      expect((await postForm(`${server.authUrl}/introspect`, { token: 'x' })).status).toBe(401);
      expect((await postForm(`${server.authUrl}/introspect`, { token: 'x', client_id: 'photo-cli' })).status).toBe(401);
      expect((await postForm(`${server.authUrl}/introspect`, { token: 'x' }, { authorization: basic('photo-web', 'nope') })).status).toBe(401);
    });

    it('revoking an access token makes the API refuse it', async () => {
      const server = await startMock(undefined, { autoLogin: 'alice' });
      const tokens = await pkceTokens(server);
      const res = await postForm(`${server.authUrl}/revoke`, { token: String(tokens.access_token), client_id: 'photo-cli' });
      expect(res.status).toBe(200);
      const api = await fetch(`${server.baseUrl}/photos`, { headers: bearer(tokens.access_token) });
      expect(api.status).toBe(401);
      expect(api.headers.get('www-authenticate')).toMatch(/revoked/);
    });

    it('revoking a refresh token revokes its family and access tokens', async () => {
      const server = await startMock(undefined, { autoLogin: 'alice' });
      const tokens = await pkceTokens(server, 'photo offline_access');
      expect((await postForm(`${server.authUrl}/revoke`, { token: String(tokens.refresh_token), token_type_hint: 'refresh_token', client_id: 'photo-cli' })).status).toBe(200);
      const refresh = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: 'photo-cli' });
      expect(refresh.body.error).toBe('invalid_grant');
      expect((await fetch(`${server.baseUrl}/photos`, { headers: bearer(tokens.access_token) })).status).toBe(401);
    });

    it('an unknown token gets 200; another client may not revoke a token', async () => {
      const server = await startMock(undefined, { autoLogin: 'alice' });
      expect((await postForm(`${server.authUrl}/revoke`, { token: 'unknown', client_id: 'photo-cli' })).status).toBe(200);
      const tokens = await pkceTokens(server);
      const other = await postForm(`${server.authUrl}/revoke`, { token: String(tokens.access_token) }, web);
      expect(other.status).toBe(400);
      expect((await fetch(`${server.baseUrl}/photos`, { headers: bearer(tokens.access_token) })).status).toBe(200);
    });

    it('introspection says when an access token expired or was revoked', async () => {
      let now = Date.now();
      const server = await startMock(undefined, { autoLogin: 'alice', now: () => now });
      const web = { authorization: basic('photo-web', 'photo-web-secret') };
      const [first, second] = [await pkceTokens(server), await pkceTokens(server)];
      const active = await postForm(`${server.authUrl}/introspect`, { token: String(first.access_token), token_type_hint: 'access_token' }, web);
      expect(active.body).toMatchObject({ active: true, iss: server.issuer, aud: server.baseUrl, exp: expect.any(Number), jti: expect.any(String) });
      await postForm(`${server.authUrl}/revoke`, { token: String(first.access_token), client_id: 'photo-cli' });
      expect((await postForm(`${server.authUrl}/introspect`, { token: String(first.access_token) }, web)).body).toEqual({ active: false });
      now += 3601_000;
      expect((await postForm(`${server.authUrl}/introspect`, { token: String(second.access_token) }, web)).body).toEqual({ active: false });
    });
  });
});

describe('opaque access tokens (access_token_format opaque)', () => {
  it('are 256 random bits, base64url, with no claims to read; the ID token is still a JWT with at_hash', async () => {
    const server = await startDefaultMock({ access_token_format: 'opaque' }, { autoLogin: 'alice' });
    const tokens = await pkceTokens(server, 'openid photo');
    const token = String(tokens.access_token);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'openid photo' });
    expect(String(tokens.id_token).split('.')).toHaveLength(3);
    const jwks = (await (await fetch(`${server.issuer}/jwks`)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(String(tokens.id_token), createLocalJWKSet(jwks), { issuer: server.issuer, audience: 'photo-cli' });
    expect(payload.at_hash).toBe(createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url'));
    expect((await pkceTokens(server)).access_token).not.toBe(token);
  });

  it('a JWT-looking token is not accepted by an opaque server unless it signed it', async () => {
    const jwtServer = await startDefaultMock(undefined, { autoLogin: 'alice' });
    const foreign = String((await pkceTokens(jwtServer)).access_token);
    const server = await startDefaultMock({ access_token_format: 'opaque' }, { autoLogin: 'alice' });
    const res = await fetch(`${server.baseUrl}/photos`, { headers: bearer(foreign) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });
});

describe('discovery and JWKS', () => {
  it('both metadata documents describe what is implemented (RFC 8414, OpenID Connect Discovery)', async () => {
    const server = await startDefaultMock();
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const meta = (await (await fetch(`${server.issuer}${path}`)).json()) as Record<string, unknown>;
      expect(meta).toMatchObject({
        issuer: server.issuer,
        authorization_endpoint: `${server.issuer}/authorize`,
        token_endpoint: `${server.issuer}/token`,
        jwks_uri: `${server.issuer}/jwks`,
        response_types_supported: ['code'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          'client_credentials',
          'urn:ietf:params:oauth:grant-type:token-exchange',
          'urn:ietf:params:oauth:grant-type:device_code',
          'urn:openid:params:grant-type:ciba',
          'urn:ietf:params:oauth:grant-type:jwt-bearer',
        ],
        device_authorization_endpoint: `${server.issuer}/device_authorization`,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'],
        pushed_authorization_request_endpoint: `${server.issuer}/par`,
        require_pushed_authorization_requests: false,
        request_parameter_supported: true,
        tls_client_certificate_bound_access_tokens: false,
      });
      expect(meta.scopes_supported).toEqual(['photo', 'offline_access', 'openid', 'profile', 'email']);
    }
    const plain = await startDefaultMock({ clients: [{ client_id: 'p', redirect_uris: ['http://127.0.0.1/cb'], allow_plain_pkce: true }] });
    const meta = (await (await fetch(`${plain.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta.code_challenge_methods_supported).toEqual(['S256', 'plain']);
  });

  it('access tokens verify against /jwks', async () => {
    const server = await startDefaultMock({ signing_alg: 'RS256' }, { autoLogin: 'alice' });
    const tokens = await pkceTokens(server);
    const jwks = (await (await fetch(`${server.issuer}/jwks`)).json()) as JSONWebKeySet;
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(JSON.stringify(jwks)).not.toMatch(/"d"/);
    const { payload, protectedHeader } = await jwtVerify(String(tokens.access_token), createLocalJWKSet(jwks), { issuer: server.issuer, audience: server.baseUrl, typ: 'at+jwt' });
    expect(protectedHeader.kid).toBe(jwks.keys[0]!.kid);
    expect(payload.client_id).toBe('photo-cli');
  });

  it('unknown paths are 404 JSON', async () => {
    const server = await startDefaultMock();
    const res = await fetch(`${server.issuer}/nope`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe('not_found');
  });
});
