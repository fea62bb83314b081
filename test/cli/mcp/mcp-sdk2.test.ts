// Interop with the MCP SDK's second major version (2.4.0): `oauthctl mcp` authorizes at an SDK 2.x
// server (createMcpHandler behind requireBearerAuth) and calls a tool, in 2026-07-28 and, forced, in
// 2025-11-25. The 1.x tests stay in mcp-sdk-peers.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { homeEnv, runCli } from '../../helpers/cli.js';
import { startSdk2McpServer, type Sdk2McpServer } from '../../helpers/sdk2-mcp-server.js';

const home = mkdtempSync(join(tmpdir(), 'oauthctl-mcp-sdk2-'));
const env = homeEnv(home);
let server: Sdk2McpServer;
let mock: MockServer;
beforeAll(async () => {
  server = await startSdk2McpServer();
  mock = await createMockServer({ resources: [server.mcp] }, { autoLogin: 'alice' });
  server.attach(mock);
});
afterAll(async () => {
  await server?.close();
  await mock?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('oauthctl mcp against an MCP SDK 2.x server', () => {
  it('authorizes from its 401, then calls echo in 2026-07-28, without initialize', async () => {
    const r = await runCli(['mcp', server.mcp, 'tools/call', 'echo', '--arguments', '{"text":"hello"}', '--headless', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ content: [{ type: 'text', text: 'hello' }] });
    expect(r.stderr).toContain('HTTP 401 to tools/list');
    expect(server.seen.some((s) => s.method === 'initialize')).toBe(false);
    expect(server.seen.filter((s) => s.method === 'tools/call').every((s) => s.version === '2026-07-28')).toBe(true);
  });

  it('with --mcp-version 2025-11-25: initialize, then echo, with the cached login', async () => {
    const before = server.seen.length;
    const r = await runCli(['mcp', server.mcp, 'tools/call', 'echo', '--arguments', '{"text":"again"}', '--mcp-version', '2025-11-25', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ content: [{ type: 'text', text: 'again' }] });
    expect(server.seen.slice(before).map((s) => s.method)).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
  });
});
