// Real peer: the MCP TypeScript SDK's own client-side auth() flow against the mock's protected resource:
// RFC 9728 discovery from the 401, dynamic registration (RFC 7591), PKCE, the resource indicator (RFC 8707).
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { startMock } from './helpers.js';
import { MemoryProvider } from '../helpers/sdk-oauth-provider.js';

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
