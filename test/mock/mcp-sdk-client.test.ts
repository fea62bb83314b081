// Real peer: the MCP TypeScript SDK's own client-side auth() flow against the mock's protected resource:
// RFC 9728 discovery from the 401, dynamic registration (RFC 7591), PKCE, the resource indicator (RFC 8707).
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { startMock } from './helpers.js';

/** An in-memory OAuthClientProvider whose "browser" is a fetch that stops at the first redirect. */
class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  get redirectUrl() {
    return 'http://127.0.0.1:4567/callback';
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'sdk client', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  // The mock requires state (RFC 6749 section 10.12); the SDK sends it when the provider makes one.
  state() {
    return 'sdk-state-0123456789abcdef';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe("the MCP SDK's client auth() against the mock", () => {
  it('finds the server from the resource, registers, runs PKCE with resource=, and the token works at the resource', async () => {
    const server = await startMock({ protected_resources: [{ path: '/mcp', scopes: ['photo'] }] }, { autoLogin: 'alice' });
    const mcp = `${server.authUrl}/mcp`;
    const provider = new MemoryProvider();
    expect(await auth(provider, { serverUrl: mcp })).toBe('REDIRECT');
    const url = provider.authorizationUrl!;
    expect(url.searchParams.get('resource')).toBe(mcp);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('scope')).toBe('photo');
    expect(server.requests().some((r) => r.path === '/register' && r.status === 201)).toBe(true);
    const redirect = await fetch(url, { redirect: 'manual' });
    const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;
    expect(await auth(provider, { serverUrl: mcp, authorizationCode: code })).toBe('AUTHORIZED');
    const token = provider.saved!.access_token;
    expect(decodeJwt(token)).toMatchObject({ aud: mcp, scope: 'photo' });
    const res = await fetch(mcp, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    // The same token is refused by the mock's other protected resource (no passthrough).
    expect((await fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });
});
