// Real peer: the MCP SDK's second major version (@modelcontextprotocol/client 2.x: Client,
// StreamableHTTPClientTransport, its OAuth) authorizes at the mock and calls the mock MCP server's tools
// over 2026-07-28, over HTTP on loopback. The 1.x peer is sdk-client.test.ts.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { startMock } from '../helpers.js';
import { MemoryProvider } from '../../helpers/sdk-oauth-provider.js';

describe("the MCP SDK 2.x client at the mock's MCP server", () => {
  it('registers, authorizes with PKCE and the resource, then lists and calls the tools in 2026-07-28', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const url = `${server.baseUrl}/mcp`;
    const provider = new MemoryProvider();
    const open = async () => {
      const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider as never });
      // versionNegotiation auto: the 2.4 client otherwise opens with initialize; auto tries 2026-07-28 first.
      const client = new Client({ name: 'sdk2-peer', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } } as never);
      await client.connect(transport);
      return { client, transport };
    };
    let peer: Awaited<ReturnType<typeof open>>;
    try {
      peer = await open();
    } catch (err) {
      if (!(err instanceof UnauthorizedError)) throw err;
      // The user's part: the mock logs alice in at once (autoLogin) and redirects with the code.
      const redirect = await fetch(provider.authorizationUrl!, { redirect: 'manual' });
      const callback = new URL(redirect.headers.get('location')!).searchParams;
      const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider as never });
      // The callback's parameters whole: the 2.x client checks iss (RFC 9207).
      await transport.finishAuth(callback);
      peer = await open();
    }
    try {
      expect(provider.authorizationUrl!.searchParams.get('resource')).toBe(url);
      expect(decodeJwt(provider.saved!.access_token)).toMatchObject({ aud: url, scope: expect.stringContaining('photo') });
      expect((await peer.client.listTools()).tools.map((t) => t.name)).toEqual(['whoami', 'echo', 'region_echo', 'greet']);
      const who = await peer.client.callTool({ name: 'whoami', arguments: {} });
      expect(who.structuredContent).toMatchObject({ sub: 'alice' });
      // region_echo's Mcp-Param-Region header is the SDK's own: the mock checks it against the argument.
      const echo = await peer.client.callTool({ name: 'region_echo', arguments: { region: 'eu-west', text: 'hi' } });
      expect((echo.content as { text: string }[])[0]!.text).toBe('eu-west: hi');
      // 2026-07-28: stateless, so the mock (which gives a session to every initialize) gave none.
      expect(peer.transport.sessionId).toBeUndefined();
    } finally {
      await peer.client.close();
      await server.close();
    }
  });
});
