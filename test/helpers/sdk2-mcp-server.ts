// An MCP server made with the MCP SDK's second major version (@modelcontextprotocol/server 2.x:
// createMcpHandler, which speaks 2026-07-28 and serves the earlier revisions statelessly, behind
// requireBearerAuth), on loopback through node:http, with the mock as its authorization server. Its
// tokens are checked by introspection at the mock; its audience by requireBearerAuth.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { createMcpHandler, getOAuthProtectedResourceMetadataUrl, McpServer, requireBearerAuth, type AuthInfo } from '@modelcontextprotocol/server';
import type { MockServer } from '../../src/mock/index.js';

export interface Sdk2McpServer {
  mcp: string;
  /** The MCP-Protocol-Version header of each MCP request the server saw, with its JSON-RPC method. */
  seen: { method: string; version: string | undefined }[];
  attach(mock: MockServer): void;
  close(): Promise<void>;
}

const body = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => resolve(Buffer.concat(chunks)))
      .on('error', reject);
  });

export async function startSdk2McpServer(): Promise<Sdk2McpServer> {
  let mock: MockServer | undefined;
  const seen: Sdk2McpServer['seen'] = [];
  const factory = () => {
    const server = new McpServer({ name: 'oauthctl-sdk2-test', version: '1.0.0' });
    server.registerTool('echo', { description: 'says it back', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
    return server;
  };
  const handler = createMcpHandler(factory);
  const verifier = {
    verifyAccessToken: async (token: string): Promise<AuthInfo> => {
      const r = await fetch(`${mock!.authUrl}/introspect`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('photo-web:photo-web-secret').toString('base64')}` },
        body: new URLSearchParams({ token }),
      });
      const info = (await r.json()) as { active: boolean; client_id: string; scope: string; exp: number; aud: string | string[] };
      if (!info.active) throw new Error('inactive');
      return { token, clientId: info.client_id, scopes: info.scope.split(' '), expiresAt: info.exp, resource: new URL([info.aud].flat()[0]!) };
    },
  };
  const http: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url!, mcp);
      if (url.pathname === new URL(metadataUrl).pathname) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ resource: mcp, authorization_servers: [mock!.issuer], scopes_supported: ['photo'] }));
      }
      const raw = req.method === 'POST' ? await body(req) : undefined;
      if (raw !== undefined && raw.length > 0) {
        const m = JSON.parse(raw.toString('utf8')) as { method?: string };
        seen.push({ method: String(m.method), version: req.headers['mcp-protocol-version'] as string | undefined });
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const request = new Request(url, { method: req.method, headers, ...(raw !== undefined && { body: raw }) });
      const auth = await gate(request);
      const response = auth instanceof Response ? auth : await handler.fetch(request, { authInfo: auth });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body === null) return res.end();
      for await (const chunk of response.body) res.write(chunk);
      res.end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const mcp = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const metadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(mcp));
  const gate = requireBearerAuth({ verifier, requiredScopes: ['photo'], resourceMetadataUrl: metadataUrl, expectedResource: new URL(mcp) });
  return {
    mcp,
    seen,
    attach: (m) => void (mock = m),
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
