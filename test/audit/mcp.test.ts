// audit --protected-resource on MCP servers written with the 1.x MCP SDK (@modelcontextprotocol/sdk:
// requireBearerAuth, its metadata router, the Streamable HTTP transport) in front of the mock as
// authorization server: the example done right, and broken one way each (no audience check, an
// introspection verifier that throws, no resource metadata, metadata for another URL, no Origin check, a
// tool whose scope is not checked or is refused without naming it).
// Each broken variant fails the probe named for its fault (exit 1); the right one and the mock's own MCP
// endpoint pass (exit 0). All real HTTP on loopback, the servers started once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import type { AuditReport } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { auditResource, failed, jwtVerifier, statuses, throwingIntrospection } from './helpers/resource-audit.js';

type Variant = 'correct' | 'no-audience' | 'throwing-introspection' | 'no-metadata' | 'other-resource' | 'no-origin-check' | 'no-tool-scope' | 'tool-scope-unnamed';
const VARIANTS: readonly Variant[] = ['correct', 'no-audience', 'throwing-introspection', 'no-metadata', 'other-resource', 'no-origin-check', 'no-tool-scope', 'tool-scope-unnamed'];

interface SdkServer {
  url: string;
  /** The JSON-RPC methods it was sent (tools/call with the tool's name), in order. */
  methods: string[];
  attach(issuer: Record<string, unknown>, mock: MockServer): void;
  close(): Promise<void>;
}

/**
 * The SDK's example shape: a stateless MCP server at /mcp (POST; GET 405), scope photo. The right one
 * checks JWTs with the authorization server's keys and issuer, the audience (expectedResource), and the
 * Origin (the transport's DNS rebinding protection); its tool whoami needs scope profile too, asked for
 * with 403 insufficient_scope before the tool runs (MCP authorization, scope challenge handling). It listens first (the mock must know its URL as a
 * resource indicator), then `attach` gives it the server's metadata.
 */
async function sdkMcpServer(variant: Variant): Promise<SdkServer> {
  const app = express();
  let inner: Router | undefined;
  app.use((req: Request, res: Response, next: NextFunction) => (inner ? inner(req, res, next) : next()));
  const server: Server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  const methods: string[] = [];
  const attach = (issuer: Record<string, unknown>, mock: MockServer) => {
    const byJwt = jwtVerifier(issuer, () => new InvalidTokenError('invalid token'));
    const byIntrospection = throwingIntrospection(mock);
    const auth = requireBearerAuth({
      verifier: { verifyAccessToken: variant === 'throwing-introspection' ? byIntrospection : byJwt },
      requiredScopes: ['photo'],
      ...(variant !== 'no-metadata' && { resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)) }),
      ...(variant !== 'no-audience' && { expectedResource: new URL(url) }),
    });
    const router = express.Router();
    if (variant !== 'no-metadata') {
      const resourceServerUrl = new URL(variant === 'other-resource' ? 'https://other.example/mcp' : url);
      router.use(mcpAuthMetadataRouter({ oauthMetadata: issuer as never, resourceServerUrl, scopesSupported: ['photo'], resourceName: 'SDK MCP server' }));
      // The metadata router serves its document where the resource's path says; a server for another URL still serves it here.
      if (variant === 'other-resource')
        router.get('/.well-known/oauth-protected-resource/mcp', (_req, res) => void res.json({ resource: 'https://other.example/mcp', authorization_servers: [issuer.issuer] }));
    }
    // The tool's own scope, checked before the transport runs it; no-tool-scope leaves it out, tool-scope-unnamed refuses without naming it.
    const toolScope = (req: Request, res: Response, next: NextFunction) => {
      const { method, params } = (req.body ?? {}) as { method?: string; params?: { name?: string } };
      methods.push(method === 'tools/call' ? `tools/call ${params?.name}` : String(method));
      if (variant === 'no-tool-scope' || method !== 'tools/call' || params?.name !== 'whoami' || req.auth?.scopes.includes('profile')) return next();
      const scope = variant === 'tool-scope-unnamed' ? '' : ', scope="photo profile"';
      res
        .status(403)
        .set('WWW-Authenticate', `Bearer error="insufficient_scope"${scope}, resource_metadata="${getOAuthProtectedResourceMetadataUrl(new URL(url))}"`)
        .json({ error: 'insufficient_scope' });
    };
    router.post('/mcp', auth, express.json(), toolScope, async (req: Request, res: Response) => {
      const mcp = new McpServer({ name: 'sdk-example', version: '1.0.0' });
      mcp.registerTool('ping', { description: 'pong' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
      mcp.registerTool('whoami', { description: 'who the token is for' }, (extra) => ({ content: [{ type: 'text' as const, text: String(extra.authInfo?.clientId) }] }));
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        ...(variant !== 'no-origin-check' && { enableDnsRebindingProtection: true, allowedOrigins: [origin] }),
      });
      res.on('close', () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(req as Parameters<typeof transport.handleRequest>[0], res, req.body);
    });
    router.get('/mcp', auth, (_req: Request, res: Response) => void res.status(405).set('Allow', 'POST').end());
    inner = router;
  };
  return {
    url,
    methods,
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

const audit = auditResource;

describe('audit --protected-resource on MCP servers of the 1.x SDK', () => {
  let mock: MockServer;
  const servers = new Map<Variant, SdkServer>();
  let deaf: Awaited<ReturnType<typeof deafServer>>;
  const urlOf = (v: Variant) => servers.get(v)!.url;
  beforeAll(async () => {
    for (const v of VARIANTS) servers.set(v, await sdkMcpServer(v));
    deaf = await deafServer(() => mock.issuer);
    mock = await createMockServer({ resources: [...[...servers.values()].map((s) => s.url), deaf.url] }, { autoLogin: 'alice' });
    const issuer = (await (await fetch(`${mock.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    for (const s of servers.values()) s.attach(issuer, mock);
  });
  afterAll(async () => {
    await mock.close();
    await Promise.all([...[...servers.values()].map((s) => s.close()), deaf.close()]);
  });

  it("done right: no probe fails, the report holds the resource's probes only, exit 0 (no --username: the server logs in by itself)", async () => {
    const { code, report, stderr } = await audit(urlOf('correct'));
    expect(failed(report), `${stderr}\n${JSON.stringify(report.probes)}`).toEqual([]);
    const byId = statuses(report);
    for (const id of ['resource-401-metadata', 'resource-garbage-token', 'resource-foreign-key', 'resource-alg-none', 'resource-other-issuer', 'mcp-token-audience', 'mcp-origin', 'mcp-401-challenge'])
      expect(byId[id], id).toBe('pass');
    // A JWT validated by its signature cannot be known revoked: a warning with the time left, not a failure.
    expect(report.probes.find((p) => p.id === 'resource-revoked-token')!.detail).toMatch(/stays good for another \d+ s/);
    expect(report.probes.every((p) => p.category === 'protected-resource' || p.category === 'mcp')).toBe(true);
    expect(report.summary.about).toEqual({ resource: report.probes.length, authorization_server: 0 });
    // The 405 to a GET is an MCP server's normal answer: nothing warned about it.
    expect(stderr).not.toMatch(/\b405\b/);
    expect(code).toBe(0);
  });

  it("--with-authorization-server adds the server's probes after the resource's, counted apart", async () => {
    const { report } = await audit(urlOf('correct'), '--with-authorization-server', '--skip', 'tls,concurrency,device,ciba,sessions,dpop,jwt,par');
    const firstServer = report.probes.findIndex((p) => p.category !== 'protected-resource' && p.category !== 'mcp');
    expect(firstServer).toBeGreaterThan(0);
    expect(report.probes.slice(firstServer).every((p) => p.category !== 'protected-resource' && p.category !== 'mcp')).toBe(true);
    expect(report.summary.about.resource).toBe(firstServer);
    expect(report.summary.about.authorization_server).toBe(report.probes.length - firstServer);
  });

  const faults: [Variant, string[]][] = [
    ['no-audience', ['resource-audience', 'mcp-token-audience']],
    ['throwing-introspection', ['resource-garbage-token', 'resource-foreign-key', 'resource-alg-none', 'resource-other-issuer', 'resource-revoked-token']],
    ['no-metadata', ['resource-401-metadata', 'mcp-401-challenge', 'resource-metadata-match', 'resource-metadata-location']],
    ['other-resource', ['resource-metadata-match', 'mcp-metadata-resource']],
    ['no-origin-check', ['mcp-origin']],
  ];
  for (const [variant, probes] of faults) {
    it(`broken (${variant}): ${probes.join(', ')} fail, exit 1`, async () => {
      // Without resource metadata nothing names the authorization server: the developer gives it.
      const { code, report, stderr } = await audit(urlOf(variant), ...(variant === 'no-metadata' ? ['--issuer', mock.issuer] : []));
      const byId = statuses(report);
      for (const id of probes) expect(byId[id], `${id}\n${stderr}\n${JSON.stringify(report.probes)}`).toBe('fail');
      if (variant === 'throwing-introspection') expect(report.probes.find((p) => p.id === 'resource-garbage-token')!.detail).toContain('a 500 is not a refusal');
      expect(code).toBe(1);
    });
  }

  it('without --call-tool the audit calls no tool: mcp-tool-scope is not tested, saying how to name one', async () => {
    const server = servers.get('correct')!;
    const before = server.methods.length;
    const { report } = await audit(server.url);
    expect(server.methods.slice(before).filter((m) => m.startsWith('tools/call'))).toEqual([]);
    const probe = report.probes.find((p) => p.id === 'mcp-tool-scope')!;
    expect([probe.status, probe.detail]).toEqual(['skip', expect.stringMatching(/^not tested: the audit calls a tool only when --call-tool names one/)]);
  });

  it('--call-tool: the tool that needs more scope answers 403 insufficient_scope naming it; where it runs anyway, or the 403 names no scope, mcp-tool-scope fails', async () => {
    const right = await audit(urlOf('correct'), '--only', 'mcp-tool-scope', '--call-tool', 'whoami');
    const probe = (r: typeof right) => r.report.probes.find((p) => p.id === 'mcp-tool-scope')!;
    expect([probe(right).status, probe(right).detail], right.stderr).toEqual(['pass', 'tools/call whoami with a token of scope "photo": 403 insufficient_scope, scope="photo profile"']);
    expect(right.code).toBe(0);
    // Called once, with the token short of profile (tools/list first, with the audit's own token, finds it listed).
    expect(servers.get('correct')!.methods.filter((m) => m === 'tools/call whoami')).toHaveLength(1);
    const runs = await audit(urlOf('no-tool-scope'), '--only', 'mcp-tool-scope', '--call-tool', 'whoami');
    expect([probe(runs).status, probe(runs).detail]).toEqual([
      'fail',
      expect.stringMatching(/^tools\/call whoami with a token of scope "photo" ran \(HTTP 200, a result\): the tool's scope is not checked/),
    ]);
    expect(runs.code).toBe(1);
    const unnamed = await audit(urlOf('tool-scope-unnamed'), '--only', 'mcp-tool-scope', '--call-tool', 'whoami');
    expect([probe(unnamed).status, probe(unnamed).detail]).toEqual(['fail', expect.stringMatching(/403 insufficient_scope, but its challenge names no scope to ask for/)]);
    expect(unnamed.code).toBe(1);
    // A tool the server does not list is not called at all.
    const before = servers.get('correct')!.methods.length;
    const missing = await audit(urlOf('correct'), '--only', 'mcp-tool-scope', '--call-tool', 'nosuch');
    expect([probe(missing).status, probe(missing).detail]).toEqual(['skip', 'not tested: tools/list does not list nosuch (the tool --call-tool names)']);
    expect(
      servers
        .get('correct')!
        .methods.slice(before)
        .filter((m) => m.startsWith('tools/call')),
    ).toEqual([]);
  });

  it('--plan mcp: the right server meets every requirement but those it cannot be tested for; the one without an Origin check fails the plan', async () => {
    const broken = await audit(urlOf('no-origin-check'), '--plan', 'mcp');
    expect(broken.report.summary.plan?.passed).toBe(false);
    expect(broken.code).toBe(1);
  });

  it('a resource that answers 405 to every call with a token has not been probed: "not tested", never refused', async () => {
    const { report } = await audit(deaf.url);
    for (const id of ['mcp-token-audience', 'mcp-query-token', 'resource-audience', 'resource-query-token']) {
      const probe = report.probes.find((p) => p.id === id)!;
      expect(probe.status, JSON.stringify(probe)).toBe('skip');
    }
    // One reason, said once.
    const reasons = report.summary.not_tested.map((n) => n.why);
    expect(new Set(reasons).size).toBe(reasons.length);
  });

  it('without --protected-resource the MCP probes are not run', async () => {
    const io = memoryIO();
    await run(['audit', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--only', 'state,mcp', '--json'], io);
    const report = JSON.parse(io.out()) as AuditReport;
    expect(report.probes.map((p) => p.id)).toEqual(['state']);
  });

  it('--plan mcp: the mock\'s own MCP endpoint passes; the expiry it cannot wait out is "not verified", saying why', async () => {
    const { code, report, stderr } = await audit(`${mock.baseUrl}/mcp`, '--plan', 'mcp');
    const plan = report.summary.plan as { passed: boolean; requirements: { text: string; status: string; missing: string[] }[] };
    expect(plan.passed, `${stderr}\n${JSON.stringify(plan)}`).toBe(true);
    const expiry = plan.requirements.find((r) => r.text === 'refuses expired, not yet valid and revoked tokens')!;
    expect(expiry.status).toBe('not verified');
    expect(expiry.missing.join(' ')).toMatch(/resource-expired-token: skip \(not tested: the access token expires in \d+ s/);
    expect(plan.requirements.filter((r) => r.status === 'not met')).toEqual([]);
    expect(code).toBe(0);
    // The text verdict says what was not verified.
    const io = memoryIO();
    await run(['audit', '--protected-resource', `${mock.baseUrl}/mcp`, '--client-id', 'photo-cli', '--plan', 'mcp'], io);
    expect(io.out()).toMatch(/plan mcp \(.*\): passed, with 2 requirements not verified/);
    expect(io.out()).toMatch(/not verified +authz 2\.6 +refuses expired, not yet valid and revoked tokens/);
    // A tool's step-up is seen only by calling one, which no --call-tool asked for.
    const stepUp = plan.requirements.find((r) => r.text === 'answers a call of a tool that needs more scope with 403 insufficient_scope naming that scope')!;
    expect([stepUp.status, stepUp.missing.join(' ')]).toEqual(['not verified', expect.stringMatching(/mcp-tool-scope: skip \(not tested: the audit calls a tool only when --call-tool names one/)]);
  });

  for (const [revision, config] of [
    ['2026-07-28', { tool_scopes: { whoami: ['profile'] } }],
    ['2025-11-25, in a session', { tool_scopes: { whoami: ['profile'] }, protocol_versions: ['2025-11-25'] }],
  ] as const) {
    it(`--call-tool on the mock's step-up (mcp.tool_scopes, ${revision}): 403 insufficient_scope naming profile passes, and --plan mcp verifies it`, async () => {
      const stepUp = await createMockServer({ mcp: config }, { autoLogin: 'alice' });
      try {
        const { code, report, stderr } = await audit(`${stepUp.baseUrl}/mcp`, '--plan', 'mcp', '--call-tool', 'whoami', '--tool-arguments', '{}');
        const probe = report.probes.find((p) => p.id === 'mcp-tool-scope')!;
        expect([probe.status, probe.detail], stderr).toEqual(['pass', 'tools/call whoami with a token of scope "photo": 403 insufficient_scope, scope="photo profile"']);
        const plan = report.summary.plan as unknown as { requirements: { text: string; status: string }[] };
        expect(plan.requirements.find((r) => r.text.startsWith('answers a call of a tool'))!.status).toBe('met');
        expect(code).toBe(0);
      } finally {
        await stepUp.close();
      }
    });
  }

  it('--call-tool and --tool-arguments given wrong: one line each, exit 2, nothing sent', async () => {
    for (const [args, line] of [
      [['--call-tool', 'whoami', '--tool-arguments', '[1]'], /^oauthctl: error: --tool-arguments must be a JSON object/],
      [['--call-tool', 'whoami', '--tool-arguments', '{not json'], /^oauthctl: error: --tool-arguments must be a JSON object/],
      [['--tool-arguments', '{}'], /^oauthctl: error: --tool-arguments needs --call-tool NAME/],
      [['--call-tool', ' '], /^oauthctl: error: --call-tool needs the name of a tool/],
    ] as const) {
      const io = memoryIO();
      const code = await run(['audit', '--protected-resource', `${mock.baseUrl}/mcp`, '--client-id', 'photo-cli', ...args], io);
      expect([code, io.err().trim().split('\n')], args.join(' ')).toEqual([2, [expect.stringMatching(line)]]);
    }
    const io = memoryIO();
    expect(await run(['audit', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--call-tool', 'whoami'], io)).toBe(2);
    expect(io.err()).toMatch(/^oauthctl: error: --call-tool needs --protected-resource URL/);
  });

  it("the mock's own MCP endpoint: no probe fails, exit 0", async () => {
    const { code, report, stderr } = await audit(`${mock.baseUrl}/mcp`);
    expect(failed(report), `${stderr}\n${JSON.stringify(report.probes)}`).toEqual([]);
    expect(statuses(report)['mcp-origin']).toBe('pass');
    // The 2026-07-28 header probe judges a server that speaks that revision, and says which one it speaks otherwise.
    const headers = report.probes.find((p) => p.id === 'mcp-standard-headers')!;
    if (headers.status !== 'pass') expect(headers.detail).toMatch(/^not tested: the server speaks only 2025-\d\d-\d\d, not 2026-07-28$/);
    expect(code).toBe(0);
  });
});
