// "Bring your own MCP server to serve-mock" (docs/mcp.md), as a user would: serve-mock started with
// fixtures/mock/byo-mcp.jsonc (only its port 3000 replaced by the server's real one), and an MCP server
// written from the MCP SDK's example (1.x: McpServer, a stateless Streamable HTTP transport, its metadata
// router and requireBearerAuth) whose token verifier introspects at the mock. `oauthctl mcp` walks the
// whole authorization (dynamic registration, headless login, PKCE, resource) and calls tools. The
// mistakes of issue 39 say what to do: a resource not listed, an introspection without client auth.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cliEnv, homeEnv, runCli } from '../../helpers/cli.js';

interface UserServer {
  mcp: string;
  /** Puts the SDK's metadata router and requireBearerAuth in front, with the mock as the authorization server. */
  attach(issuer: string): Promise<void>;
  close(): Promise<void>;
}

/** Listens first: the mock's config needs the URL. */
async function listen(app: ReturnType<typeof express>): Promise<{ server: Server; origin: string }> {
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * The user's MCP server: the SDK example's shape, its verifier introspecting at the mock's
 * introspection_endpoint (RFC 7662) as the client `mcp-server` of the fixture, or (`withoutClientAuth`)
 * as the SDK's example does, with no client authentication at all: the mistake of the issue.
 */
async function userServer({ withoutClientAuth = false } = {}): Promise<UserServer> {
  const app = express();
  const { server, origin } = await listen(app);
  const mcp = `${origin}/mcp`;
  const attach = async (issuer: string) => {
    const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as { introspection_endpoint: string };
    const verifyAccessToken = async (token: string): Promise<AuthInfo> => {
      const headers: Record<string, string> = withoutClientAuth ? {} : { authorization: `Basic ${Buffer.from('mcp-server:mcp-server-secret').toString('base64')}` };
      const r = await fetch(metadata.introspection_endpoint, { method: 'POST', headers, body: new URLSearchParams({ token }) });
      const info = (await r.json()) as { active?: boolean; client_id: string; scope: string; exp: number; aud: string | string[]; error_description?: string };
      if (!r.ok) throw new ServerError(`token introspection answered HTTP ${r.status}: ${info.error_description ?? ''}`);
      if (!info.active) throw new InvalidTokenError('the token is not active');
      return { token, clientId: info.client_id, scopes: info.scope.split(' '), expiresAt: info.exp, resource: new URL([info.aud].flat()[0]!) };
    };
    app.use(mcpAuthMetadataRouter({ oauthMetadata: metadata as never, resourceServerUrl: new URL(mcp), scopesSupported: ['mcp:tools'], resourceName: 'My MCP server' }));
    app.post(
      '/mcp',
      express.json(),
      requireBearerAuth({ verifier: { verifyAccessToken }, requiredScopes: ['mcp:tools'], resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(mcp)), expectedResource: new URL(mcp) }),
      async (req, res) => {
        const mcpServer = new McpServer({ name: 'my-mcp-server', version: '1.0.0' });
        mcpServer.registerTool('add', { description: 'adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on('close', () => void transport.close());
        await mcpServer.connect(transport);
        await transport.handleRequest(req as Parameters<StreamableHTTPServerTransport['handleRequest']>[0], res, req.body);
      },
    );
  };
  return {
    mcp,
    attach,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** `oauthctl serve-mock --config FILE --port 0 --auto-login alice --json`, resolved with its issuer once it listens. */
function serveMock(config: string): Promise<{ issuer: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve-mock', '--config', config, '--port', '0', '--auto-login', 'alice', '--json', '--quiet'], {
      cwd: ROOT,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = /^\{.*\}$/m.exec(out)?.[0];
      if (line) resolve({ issuer: (JSON.parse(line) as { issuer: string }).issuer, child });
    });
    child.on('error', reject);
    child.on('close', (code) => reject(new Error(`serve-mock exited ${code}: ${err}`)));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'oauthctl-mcp-byo-'));
const env = homeEnv(dir);
let mock: { issuer: string; child: ChildProcess } | undefined;
let mine: UserServer;
let unlisted: UserServer;
let careless: UserServer;

beforeAll(async () => {
  // The servers listen first (the config names their URLs: the fixture's one for 3000, and the careless one beside it).
  mine = await userServer();
  unlisted = await userServer();
  careless = await userServer({ withoutClientAuth: true });
  const config = join(dir, 'byo-mcp.jsonc');
  const fixture = readFileSync(join(ROOT, 'fixtures/mock/byo-mcp.jsonc'), 'utf8');
  expect(fixture).toContain('"resources": ["http://127.0.0.1:3000/mcp"]');
  writeFileSync(config, fixture.replace('"http://127.0.0.1:3000/mcp"', `"${mine.mcp}", "${careless.mcp}"`).replace('"../../schemas/', `"${ROOT}/schemas/`));
  mock = await serveMock(config);
  for (const s of [mine, unlisted, careless]) await s.attach(mock.issuer);
}, 60_000);
afterAll(async () => {
  await mine?.close();
  await unlisted?.close();
  await careless?.close();
  mock?.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

describe('your own MCP server with serve-mock as its authorization server', () => {
  it('tools/list walks the whole authorization: 401, metadata, registration, headless login, token, then the list', async () => {
    const r = await runCli(['mcp', mine.mcp, 'tools/list', '--headless', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ tools: [{ name: 'add' }] });
    expect(r.stderr).toContain('HTTP 401');
    expect(r.stderr).toContain('mcp:tools');
  });

  it("tools/call with the cached login, and with the fixture's client mcp-cli", async () => {
    const cached = await runCli(['mcp', mine.mcp, 'tools/call', 'add', '--arguments', '{"a":2,"b":3}', '--json'], { env });
    expect(cached.code, cached.stderr).toBe(0);
    expect(JSON.parse(cached.stdout)).toMatchObject({ content: [{ type: 'text', text: '5' }] });
    const own = await runCli(['mcp', mine.mcp, 'tools/call', 'add', '--arguments', '{"a":1,"b":1}', '--client-id', 'mcp-cli', '--no-cache', '--headless', '--json'], { env });
    expect(own.code, own.stderr).toBe(0);
    expect(JSON.parse(own.stdout)).toMatchObject({ content: [{ type: 'text', text: '2' }] });
  });

  it('a server whose URL is not under "resources": invalid_target saying to list it there, citing RFC 8707', async () => {
    const r = await runCli(['mcp', unlisted.mcp, 'tools/list', '--headless'], { env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('invalid_target');
    expect(r.stderr).toContain(`list it under 'resources' in the mock's --config (RFC 8707 section 2)`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a server that introspects without client authentication: its HTTP 500 body is printed, the mock's words in it", async () => {
    const r = await runCli(['mcp', careless.mcp, 'tools/list', '--client-id', 'mcp-cli', '--headless', '--verbose'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('HTTP 500');
    expect(r.stderr).toContain('token introspection answered HTTP 401: no client authentication');
    expect(r.stderr).not.toMatch(/run with --verbose/);
  });
});
