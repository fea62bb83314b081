// audit --protected-resource on MCP servers written with the 2.x MCP SDK (@modelcontextprotocol/server
// 2.4.0: its fetch-style requireBearerAuth gate, oauthMetadataResponse, originValidationResponse and the
// createMcpHandler serving entry (2026-07-28 and the earlier revisions), bridged to node:http), in front of the mock as authorization
// server: done right, without the audience check, with an introspection verifier that throws, without
// the Origin check, and taking 2026-07-28 requests whose Mcp-Method header disagrees with the body. Each broken variant fails the probe named for its fault (exit 1); the right
// one passes (exit 0). All real HTTP on loopback, the servers started once.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  McpServer,
  OAuthError,
  OAuthErrorCode,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  localhostAllowedOrigins,
  oauthMetadataResponse,
  originValidationResponse,
  requireBearerAuth,
  type OAuthMetadata,
} from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { auditResource, failed, jwtVerifier, statuses, throwingIntrospection } from './helpers/resource-audit.js';

type Variant = 'correct' | 'no-audience' | 'throwing-introspection' | 'no-origin-check' | 'no-header-check';
const VARIANTS: readonly Variant[] = ['correct', 'no-audience', 'throwing-introspection', 'no-origin-check', 'no-header-check'];

interface SdkServer {
  url: string;
  attach(issuer: Record<string, unknown>, mock: MockServer): void;
  close(): Promise<void>;
}

/** node:http to the web-standard Request the 2.x SDK takes, and its Response back. */
async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) for (const v of [value ?? []].flat()) headers.append(name, v);
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
  return new Request(new URL(req.url ?? '/', origin), { method: req.method, headers, body });
}
async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

async function sdkMcpServer(variant: Variant): Promise<SdkServer> {
  let handle: ((request: Request) => Promise<Response>) | undefined;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const request = await toRequest(req, origin);
      await send(res, handle ? await handle(request) : new Response(null, { status: 503 }));
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  const attach = (issuer: Record<string, unknown>, mock: MockServer) => {
    const byJwt = jwtVerifier(issuer, () => new OAuthError(OAuthErrorCode.InvalidToken, 'invalid token'));
    const byIntrospection = throwingIntrospection(mock);
    const gate = requireBearerAuth({
      verifier: { verifyAccessToken: variant === 'throwing-introspection' ? byIntrospection : byJwt },
      requiredScopes: ['photo'],
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)),
      ...(variant !== 'no-audience' && { expectedResource: new URL(url) }),
    });
    // The 2.x serving entry: the 2026-07-28 revision (stateless, standard headers) and the earlier ones.
    const mcp = createMcpHandler(() => {
      const server = new McpServer({ name: 'sdk2-example', version: '1.0.0' });
      server.registerTool('ping', { description: 'pong' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
      return server;
    });
    const metadata = { oauthMetadata: issuer as unknown as OAuthMetadata, resourceServerUrl: new URL(url), scopesSupported: ['photo'], dangerouslyAllowInsecureIssuerUrl: true };
    handle = async (request) => {
      const served = oauthMetadataResponse(request, metadata);
      if (served) return served;
      if (new URL(request.url).pathname !== '/mcp') return new Response(null, { status: 404 });
      if (variant !== 'no-origin-check') {
        const refused = originValidationResponse(request, localhostAllowedOrigins());
        if (refused) return refused;
      }
      const authInfo = await gate(request);
      if (authInfo instanceof Response) return authInfo;
      // The fault: standard headers rewritten from the body, so a header that disagrees with it is never seen.
      if (variant === 'no-header-check' && request.headers.has('mcp-method')) {
        const body = (await request.json()) as { method: string };
        const headers = new Headers(request.headers);
        headers.set('mcp-method', body.method);
        headers.delete('mcp-name');
        return mcp.fetch(new Request(request.url, { method: 'POST', headers, body: JSON.stringify(body) }), { authInfo });
      }
      return mcp.fetch(request, { authInfo });
    };
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

const audit = auditResource;

describe('audit --protected-resource on MCP servers of the 2.x SDK', () => {
  let mock: MockServer;
  const servers = new Map<Variant, SdkServer>();
  beforeAll(async () => {
    for (const v of VARIANTS) servers.set(v, await sdkMcpServer(v));
    mock = await createMockServer({ resources: [...servers.values()].map((s) => s.url) }, { autoLogin: 'alice' });
    const issuer = (await (await fetch(`${mock.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    for (const s of servers.values()) s.attach(issuer, mock);
  });
  afterAll(async () => {
    await mock.close();
    await Promise.all([...servers.values()].map((s) => s.close()));
  });

  it('done right: no probe fails, exit 0', async () => {
    const { code, report, stderr } = await audit(servers.get('correct')!.url);
    expect(failed(report), `${stderr}\n${JSON.stringify(report.probes)}`).toEqual([]);
    const byId = statuses(report);
    for (const id of [
      'resource-401-metadata',
      'resource-metadata-match',
      'resource-garbage-token',
      'resource-foreign-key',
      'resource-alg-none',
      'resource-other-issuer',
      'mcp-token-audience',
      'mcp-origin',
    ])
      expect(byId[id], id).toBe('pass');
    // It speaks 2026-07-28 and checks the standard headers against the body.
    expect(byId['mcp-standard-headers'], report.probes.find((p) => p.id === 'mcp-standard-headers')!.detail).toBe('pass');
    expect(code).toBe(0);
  });

  const faults: [Variant, string[]][] = [
    ['no-audience', ['resource-audience', 'mcp-token-audience']],
    ['throwing-introspection', ['resource-garbage-token', 'resource-foreign-key', 'resource-alg-none', 'resource-other-issuer', 'resource-revoked-token']],
    ['no-origin-check', ['mcp-origin']],
    ['no-header-check', ['mcp-standard-headers']],
  ];
  for (const [variant, probes] of faults) {
    it(`broken (${variant}): ${probes.join(', ')} fail, exit 1`, async () => {
      const { code, report, stderr } = await audit(servers.get(variant)!.url);
      const byId = statuses(report);
      for (const id of probes) expect(byId[id], `${id}\n${stderr}\n${JSON.stringify(report.probes)}`).toBe('fail');
      expect(code).toBe(1);
    });
  }
});
