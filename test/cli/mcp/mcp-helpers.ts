// An MCP server made with the official MCP TypeScript SDK (McpServer, StreamableHTTPServerTransport with
// sessions, its metadata router and requireBearerAuth), on loopback, with the mock as its authorization
// server. A tools/call of `write` needs the scope `email` besides `photo`: a 403 insufficient_scope.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { MockServer } from '../../../src/mock/index.js';

export interface SdkMcpServer {
  origin: string;
  mcp: string;
  /** The MCP requests the server saw: method, and the session id and protocol version headers. */
  seen: { method: string; session?: string; version?: string; auth: boolean }[];
  close(): Promise<void>;
}

/** The tokens are checked by introspection at the mock (as the SDK's example server does), their audience by the SDK. */
function introspectingVerifier(mock: MockServer) {
  return async (token: string): Promise<AuthInfo> => {
    const r = await fetch(`${mock.authUrl}/introspect`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('photo-web:photo-web-secret').toString('base64')}` },
      body: new URLSearchParams({ token }),
    });
    const info = (await r.json()) as { active: boolean; client_id: string; scope: string; exp: number; aud: string | string[] };
    if (!info.active) throw new InvalidTokenError('inactive');
    return { token, clientId: info.client_id, scopes: info.scope.split(' '), expiresAt: info.exp, resource: new URL([info.aud].flat()[0]!) };
  };
}

function mcpServerFor(): McpServer {
  const server = new McpServer({ name: 'oauthctl-test', version: '1.0.0' });
  server.registerTool('echo', { description: 'says it back', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('write', { description: 'needs the scope email' }, (extra) => ({ content: [{ type: 'text', text: `written by ${extra.authInfo?.clientId ?? '?'}` }] }));
  server.registerResource('readme', 'file:///readme.txt', { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, text: 'read me' }] }));
  return server;
}

/** Listens first (the mock needs the URL as its resource), then `attach` puts the MCP server and its authorization in front. */
export async function startSdkMcpServer(): Promise<SdkMcpServer & { attach(mock: MockServer): Promise<void> }> {
  const app = express();
  const httpServer: Server = createServer(app);
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const mcp = `${origin}/mcp`;
  const seen: SdkMcpServer['seen'] = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(mcp));
  const attach = async (mock: MockServer) => {
    const metadata = (await (await fetch(`${mock.issuer}/.well-known/oauth-authorization-server`)).json()) as never;
    app.use(mcpAuthMetadataRouter({ oauthMetadata: metadata, resourceServerUrl: new URL(mcp), scopesSupported: ['photo'], resourceName: 'SDK MCP server' }));
    app.post(
      '/mcp',
      express.json(),
      (req, _res, next) => {
        const body = req.body as { method?: string };
        const session = req.headers['mcp-session-id'];
        const version = req.headers['mcp-protocol-version'];
        seen.push({ method: body.method ?? '?', auth: req.headers.authorization !== undefined, ...(typeof session === 'string' && { session }), ...(typeof version === 'string' && { version }) });
        next();
      },
      requireBearerAuth({ verifier: { verifyAccessToken: introspectingVerifier(mock) }, requiredScopes: ['photo'], resourceMetadataUrl }),
      (req, res, next) => {
        const body = req.body as { method?: string; params?: { name?: string } };
        if (body.method === 'tools/call' && body.params?.name === 'write' && !req.auth?.scopes.includes('email')) {
          res.status(403).set('WWW-Authenticate', `Bearer error="insufficient_scope", scope="photo email", resource_metadata="${resourceMetadataUrl}"`).json({ error: 'insufficient_scope' });
          return;
        }
        next();
      },
      async (req, res) => {
        const sid = req.headers['mcp-session-id'];
        let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
        if (transport === undefined) {
          if (sid !== undefined) {
            res.status(404).json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
            return;
          }
          const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void transports.set(id, t) });
          await mcpServerFor().connect(t);
          transport = t;
        }
        await transport.handleRequest(req as Parameters<StreamableHTTPServerTransport['handleRequest']>[0], res, req.body);
      },
    );
  };
  return {
    origin,
    mcp,
    seen,
    attach,
    close: async () => {
      for (const t of transports.values()) await t.close();
      await new Promise<void>((r) => {
        httpServer.close(() => r());
        httpServer.closeAllConnections();
      });
    },
  };
}
