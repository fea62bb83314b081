// Real peer: the MCP TypeScript SDK's own client (Client, StreamableHTTPClientTransport, its auth())
// authorizes at the mock and calls the mock MCP server's tools, over HTTP on loopback.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../../src/mock/index.js';
import { startMock } from '../helpers.js';
import { MemoryProvider } from '../../helpers/sdk-oauth-provider.js';

/** The user's part: the mock logs alice in at once (autoLogin) and redirects with the code. */
async function codeOf(provider: MemoryProvider): Promise<string> {
  const redirect = await fetch(provider.authorizationUrl!, { redirect: 'manual' });
  const location = new URL(redirect.headers.get('location')!);
  expect(location.searchParams.get('error')).toBeNull();
  return location.searchParams.get('code')!;
}

/** Runs `step`; when the SDK needs the user (UnauthorizedError), completes the authorization and runs it again. */
async function withAuthorization<T>(transport: StreamableHTTPClientTransport, provider: MemoryProvider, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
    await transport.finishAuth(await codeOf(provider));
    return step();
  }
}

async function connected(server: MockServer, provider: MemoryProvider): Promise<{ client: Client; transport: StreamableHTTPClientTransport; url: string }> {
  const url = `${server.baseUrl}/mcp`;
  let transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  let client = new Client({ name: 'sdk-peer', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
    await transport.finishAuth(await codeOf(provider));
    await client.close();
    transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    client = new Client({ name: 'sdk-peer', version: '1.0.0' });
    await client.connect(transport);
  }
  return { client, transport, url };
}

const textOf = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { text: string }[])[0]!.text;

describe("the MCP SDK's client at the mock's MCP server", () => {
  it('registers, authorizes with PKCE and the resource, then calls whoami and echo (sessions, JSON)', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const provider = new MemoryProvider();
    const { client, url } = await connected(server, provider);
    try {
      const authorize = provider.authorizationUrl!;
      expect(authorize.searchParams.get('resource')).toBe(url);
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorize.searchParams.get('scope')).toBe('photo');
      expect(server.requests().some((r) => r.path === '/register' && r.status === 201)).toBe(true);
      expect(decodeJwt(provider.saved!.access_token)).toMatchObject({ aud: url, scope: 'photo' });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami', 'echo', 'region_echo', 'greet']);
      const who = await client.callTool({ name: 'whoami', arguments: {} });
      expect(who.structuredContent).toEqual({ sub: 'alice', client_id: provider.client!.client_id, scope: 'photo' });
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'through the looking glass' } }))).toBe('through the looking glass');
    } finally {
      await client.close();
    }
  });

  it('step-up: a tool that needs a wider scope gets 403 insufficient_scope, the SDK authorizes again with it, and the call goes through', async () => {
    const server = await startMock({ mcp: { tool_scopes: { whoami: ['profile'] }, sessions: false, response: 'sse' } }, { autoLogin: 'alice' });
    const provider = new MemoryProvider();
    const { client, transport } = await connected(server, provider);
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'narrow' } }))).toBe('narrow');
      const who = await withAuthorization(transport, provider, () => client.callTool({ name: 'whoami', arguments: {} }));
      expect(provider.authorizationUrl!.searchParams.get('scope')).toBe('photo profile');
      expect(who.structuredContent).toMatchObject({ sub: 'alice', scope: 'photo profile' });
    } finally {
      await client.close();
    }
  });

  it("a machine client (the SDK's ClientCredentialsProvider, client_secret_basic) gets a token for the MCP server and calls whoami", async () => {
    const server = await startMock({ mcp: { sessions: false } });
    const url = `${server.baseUrl}/mcp`;
    const provider = new ClientCredentialsProvider({ clientId: 'photo-service', clientSecret: 'photo-service-secret', scope: 'photo' });
    const client = new Client({ name: 'sdk-machine', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
    try {
      expect(decodeJwt(provider.tokens()!.access_token)).toMatchObject({ aud: url, client_id: 'photo-service' });
      expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({ sub: 'photo-service', client_id: 'photo-service', scope: 'photo' });
    } finally {
      await client.close();
    }
  });

  for (const asMetadata of [true, false])
    it(`the 2025-03-26 revision (no resource metadata; authorization server metadata ${asMetadata ? 'at the origin' : 'absent: the default endpoints'})`, async () => {
      const server = await startMock({ mcp: { revision: '2025-03-26', authorization_server_metadata: asMetadata } }, { autoLogin: 'alice' });
      const provider = new MemoryProvider();
      const { client } = await connected(server, provider);
      try {
        expect(server.requests().some((r) => r.path.startsWith('/.well-known/oauth-protected-resource') && r.status === 404)).toBe(true);
        expect(provider.authorizationUrl!.pathname).toBe('/authorize');
        expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toMatchObject({ sub: 'alice' });
      } finally {
        await client.close();
      }
    });
});
