// `oauthctl mcp` (the built CLI, a child process) against an MCP server made with the MCP SDK, on
// loopback, with the mock as its authorization server: the whole authorization from the first POST's 401,
// the cached login reused, the session kept, a step-up on 403, and errors in one line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { homeEnv, runCli } from '../../helpers/cli.js';
import { startSdkMcpServer } from './mcp-helpers.js';

let home: string;
let env: Record<string, string>;
let mock: MockServer;
let server: Awaited<ReturnType<typeof startSdkMcpServer>>;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-mcp-'));
  env = homeEnv(home);
  server = await startSdkMcpServer();
  mock = await createMockServer({ resources: [server.mcp] }, { autoLogin: 'alice' });
  await server.attach(mock);
});
afterAll(async () => {
  await server?.close();
  await mock?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('oauthctl mcp against the MCP SDK server', () => {
  it('authorizes from the 401 to the POST, then lists the tools; a second run uses the cached login and the session', async () => {
    const first = await runCli(['mcp', server.mcp, '--headless', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    const tools = JSON.parse(first.stdout) as { tools: { name: string }[] };
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['echo', 'write']);
    // Narrated as login narrates, each decision with its section.
    expect(first.stderr).toContain('HTTP 401 to tools/list');
    // The SDK 1.x server speaks 2025-11-25: its 400 to the 2026-07-28 request is a fallback, narrated.
    expect(first.stderr).toContain('HTTP 400 to a 2026-07-28 request without a 2026-07-28 error: the server speaks an earlier revision; falling back to the initialize handshake');
    expect(first.stderr).toContain('Protected Resource Metadata Discovery');
    expect(first.stderr).toContain(`the 401 names resource_metadata ${server.origin}/.well-known/oauth-protected-resource/mcp`);
    expect(first.stderr).toContain("scope: photo offline_access (the challenge's scope, and offline_access (the authorization server lists it))");
    expect(first.stderr).toContain('dynamic client registration (RFC 7591)');
    expect(first.stderr).toContain(`resource=${server.mcp}`);
    expect(first.stderr).toContain('code_challenge_method=S256');

    const before = server.seen.length;
    const second = await runCli(['mcp', server.mcp, 'tools/call', 'echo', '--arguments', '{"text":"hello"}', '--headless'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ content: [{ type: 'text', text: 'hello' }] });
    expect(second.stderr).toContain(`Using the login cached for ${server.mcp}`);
    expect(second.stderr).not.toContain('Authorization request');
    // The 2026-07-28 request first (the tool's declaration, tools/list), refused by this 2025-11-25 server;
    // then initialize without a session, and the server's session id and the negotiated version on every request.
    expect(server.seen[before]).toMatchObject({ method: 'tools/list', version: '2026-07-28' });
    const calls = server.seen.slice(before + 1);
    expect(calls.map((c) => c.method)).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
    expect(calls[0]!.session).toBeUndefined();
    expect(calls[1]!.session).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[2]!.session).toBe(calls[1]!.session);
    expect(calls[2]!.version).toBe('2025-11-25');

    // token --protected-resource finds the same login.
    const token = await runCli(['token', '--protected-resource', server.mcp], { env });
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout.trim()).toMatch(/^ey/);
  });

  it('a 403 insufficient_scope authorizes again with the union of the scopes (step-up)', async () => {
    const r = await runCli(['mcp', server.mcp, 'tools/call', 'write', '--headless'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('HTTP 403 insufficient_scope to tools/call: it asks for "photo email"');
    expect(r.stderr).toMatch(/scope: photo offline_access email|scope: photo email offline_access/);
    expect(JSON.parse(r.stdout)).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('written by') }] });
  });

  it('--client-credentials: a machine client with its own token for the resource, no login', async () => {
    const fresh = homeEnv(mkdtempSync(join(tmpdir(), 'oauthctl-mcp-cc-')));
    try {
      const r = await runCli(['mcp', server.mcp, '--client-credentials', '--client-id', 'photo-service', '--client-secret', 'photo-service-secret'], { env: fresh });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('POST ' + mock.issuer + '/token (grant_type=client_credentials, client authentication: client_secret_basic)');
      expect(r.stderr).not.toContain('Authorization request');
      expect(r.stderr).not.toContain('offline_access');
      expect(JSON.parse(r.stdout).tools).toHaveLength(2);
    } finally {
      rmSync(fresh.HOME, { recursive: true, force: true });
    }
  });

  it('reads a resource by its URI', async () => {
    const r = await runCli(['mcp', server.mcp, 'resources/read', 'file:///readme.txt', '--headless'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ contents: [{ uri: 'file:///readme.txt', text: 'read me' }] });
  });

  it('a JSON-RPC error answer is one line on stderr and exit 1 (the server has no prompts)', async () => {
    const r = await runCli(['mcp', server.mcp, 'prompts/list', '--headless'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/oauthctl: the MCP server answered prompts\/list with JSON-RPC error -32601: [^\n]*\n$/);
  });

  it('--no-login reports the 401 without authorizing', async () => {
    const fresh = homeEnv(mkdtempSync(join(tmpdir(), 'oauthctl-mcp-nologin-')));
    const r = await runCli(['mcp', server.mcp, '--no-login'], { env: fresh });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('answered HTTP 401 to tools/list');
    expect(r.stderr).not.toContain('Protected resource metadata');
    rmSync(fresh.HOME, { recursive: true, force: true });
  });

  it("discover starts an MCP server's chain with a POST of initialize, as MCP clients do", async () => {
    const r = await runCli(['discover', server.mcp], { env });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain(`POST ${server.mcp} -> HTTP 401 (WWW-Authenticate names resource_metadata`);
    expect(r.stdout).toContain('the chain holds');
  });

  it('bad input is one line and exit 2', async () => {
    const noName = await runCli(['mcp', server.mcp, 'tools/call'], { env });
    expect(noName.code).toBe(2);
    expect(noName.stderr).toMatch(/tools\/call needs the tool name as the next argument/);
    const badArgs = await runCli(['mcp', server.mcp, 'tools/call', 'echo', '--arguments', '[1]'], { env });
    expect(badArgs.code).toBe(2);
    expect(badArgs.stderr).toContain('--arguments must be a JSON object');
    const noPkce = await runCli(['mcp', server.mcp, '--no-pkce', '--no-cache', '--headless'], { env });
    expect(noPkce.code).toBe(2);
    expect(noPkce.stderr).toContain('--no-pkce cannot be used with mcp');
    for (const r of [noName, badArgs, noPkce]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
