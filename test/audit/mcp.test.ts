// audit --protected-resource on MCP servers: the MCP SDK's own server (requireBearerAuth and a JWT
// verifier, its Streamable HTTP transport) with its audience check on and off, in front of the mock as
// authorization server, and the mock's own MCP endpoint. All real HTTP on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import type { AuditReport } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';

const PROBES = ['mcp-401-challenge', 'mcp-metadata-resource', 'mcp-token-audience', 'mcp-query-token', 'resource-401-metadata', 'resource-audience', 'resource-query-token'];

/**
 * The SDK's example shape: a stateless MCP server at /mcp (POST; GET 405), tokens checked by signature
 * with the authorization server's keys, scope photo, and the audience only when `strict`. It listens
 * first (the mock must know its URL as a resource indicator), then `attach` gives it the server's metadata.
 */
async function sdkMcpServer(strict: boolean): Promise<{ url: string; attach(issuer: Record<string, unknown>): void; close(): Promise<void> }> {
  const app = express();
  let inner: Router | undefined;
  app.use((req: Request, res: Response, next: NextFunction) => (inner ? inner(req, res, next) : next()));
  const server: Server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const attach = (issuer: Record<string, unknown>) => {
    const jwks = createRemoteJWKSet(new URL(String(issuer.jwks_uri)));
    const auth = requireBearerAuth({
      verifier: {
        verifyAccessToken: async (token) => {
          const { payload } = await jwtVerify(token, jwks, { issuer: String(issuer.issuer) }).catch(() => {
            throw new InvalidTokenError('invalid token');
          });
          return { token, clientId: String(payload.client_id), scopes: String(payload.scope ?? '').split(' '), expiresAt: payload.exp!, resource: new URL([payload.aud].flat()[0]!) };
        },
      },
      requiredScopes: ['photo'],
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)),
      ...(strict ? { expectedResource: new URL(url) } : {}),
    });
    const router = express.Router();
    router.use(mcpAuthMetadataRouter({ oauthMetadata: issuer as never, resourceServerUrl: new URL(url), scopesSupported: ['photo'], resourceName: 'SDK MCP server' }));
    router.post('/mcp', auth, express.json(), async (req: Request, res: Response) => {
      const mcp = new McpServer({ name: 'sdk-example', version: '1.0.0' });
      mcp.registerTool('ping', { description: 'pong' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(req as Parameters<typeof transport.handleRequest>[0], res, req.body);
    });
    router.get('/mcp', auth, (_req: Request, res: Response) => void res.status(405).set('Allow', 'POST').end());
    inner = router;
  };
  return {
    url,
    attach,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** A resource whose 401 names its metadata, but that answers 405 to every call with a token: no decision about any token. */
async function deafServer(issuer: () => string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ resource: url, authorization_servers: [issuer()], scopes_supported: ['photo'] }));
    }
    if (!req.headers.authorization) {
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="photo"` });
      return res.end();
    }
    res.writeHead(405, { allow: 'PUT' });
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function audit(resource: string): Promise<{ code: number; report: AuditReport; stderr: string }> {
  const io = memoryIO();
  const code = await run(['audit', '--protected-resource', resource, '--client-id', 'photo-cli', '--username', 'alice', '--password', 'wonderland', '--only', PROBES.join(','), '--json'], io);
  return { code, report: JSON.parse(io.out()) as AuditReport, stderr: io.err() };
}
const statuses = (report: AuditReport) => Object.fromEntries(report.probes.map((p) => [p.id, p.status]));

describe('audit --protected-resource on an MCP server', () => {
  let mock: MockServer;
  let strict: Awaited<ReturnType<typeof sdkMcpServer>>;
  let blind: Awaited<ReturnType<typeof sdkMcpServer>>;
  let deaf: Awaited<ReturnType<typeof deafServer>>;
  beforeAll(async () => {
    strict = await sdkMcpServer(true);
    blind = await sdkMcpServer(false);
    deaf = await deafServer(() => mock.issuer);
    mock = await createMockServer({ resources: [strict.url, blind.url, deaf.url] }, { autoLogin: 'alice' });
    const issuer = (await (await fetch(`${mock.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    strict.attach(issuer);
    blind.attach(issuer);
  });
  afterAll(async () => {
    await mock.close();
    await Promise.all([strict.close(), blind.close(), deaf.close()]);
  });

  it("the SDK's server with its audience check: every probe passes, exit 0", async () => {
    const { code, report, stderr } = await audit(strict.url);
    expect(statuses(report), `${stderr}\n${JSON.stringify(report.probes)}`).toEqual(Object.fromEntries(PROBES.map((id) => [id, 'pass'])));
    expect(code).toBe(0);
  });

  it("the SDK's server without it takes a token issued for another resource: mcp-token-audience and resource-audience fail, exit 1", async () => {
    const { code, report } = await audit(blind.url);
    const byId = statuses(report);
    expect(byId['mcp-token-audience'], JSON.stringify(report.probes)).toBe('fail');
    expect(byId['resource-audience']).toBe('fail');
    expect(report.probes.find((p) => p.id === 'mcp-token-audience')!.detail).toContain(`a token for ${mock.baseUrl} was taken`);
    expect(byId['mcp-401-challenge']).toBe('pass');
    expect(code).toBe(1);
  });

  it('a resource that answers 405 to every call with a token has not been probed: "not tested", never refused', async () => {
    const { report } = await audit(deaf.url);
    for (const id of ['mcp-token-audience', 'mcp-query-token', 'resource-audience', 'resource-query-token']) {
      const probe = report.probes.find((p) => p.id === id)!;
      expect(probe.status, JSON.stringify(probe)).toBe('skip');
      expect(probe.detail).toContain('not tested: HTTP 405');
    }
  });

  it('without --protected-resource the MCP probes are not run', async () => {
    const io = memoryIO();
    await run(['audit', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--username', 'alice', '--password', 'wonderland', '--only', 'state,mcp', '--json'], io);
    const report = JSON.parse(io.out()) as AuditReport;
    expect(report.probes.map((p) => p.id)).toEqual(['state']);
  });

  it("the mock's own MCP endpoint passes every probe", async () => {
    const { code, report, stderr } = await audit(`${mock.baseUrl}/mcp`);
    expect(statuses(report), `${stderr}\n${JSON.stringify(report.probes)}`).toEqual(Object.fromEntries(PROBES.map((id) => [id, 'pass'])));
    expect(code).toBe(0);
  });
});
