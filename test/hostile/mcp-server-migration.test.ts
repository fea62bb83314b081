// SEP-2352 on loopback: an MCP server whose resource metadata moves from one authorization server (a
// mock) to another. The second run registers at the new server and never presents the old server's
// client there; the old registration stays kept for the old issuer.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { homeEnv, runCli } from '../helpers/cli.js';

const servers: Server[] = [];
const mocks: MockServer[] = [];
let home: string;
let env: Record<string, string>;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-migration-'));
  env = homeEnv(home);
});
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  await Promise.all(mocks.splice(0).map((m) => m.close()));
  rmSync(home, { recursive: true, force: true });
});

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
};

/** An MCP server whose metadata names `where.issuer`; it takes any bearer token. */
async function mcpServer(where: { issuer: string }): Promise<string> {
  let origin = '';
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      if (req.method === 'GET') return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [where.issuer], scopes_supported: ['photo'] });
      if (req.headers.authorization === undefined) return json(res, 401, {}, { 'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` });
      const message = JSON.parse(body) as { id?: number; method: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === 'initialize')
        return json(res, 200, { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'm', version: '1' } } });
      json(res, 200, { jsonrpc: '2.0', id: message.id, result: { tools: [] } });
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return `${origin}/mcp`;
}

it('a resource moved to another authorization server: registered anew there, the old client never shown to it', async () => {
  const where = { issuer: '' };
  const url = await mcpServer(where);
  const [a, b] = await Promise.all([createMockServer({ resources: [url] }, { autoLogin: 'alice' }), createMockServer({ resources: [url] }, { autoLogin: 'alice' })]);
  mocks.push(a, b);
  where.issuer = a.issuer;
  const first = await runCli(['mcp', url, '--headless', '--no-cache'], { env });
  expect(first.code, first.stderr).toBe(0);
  const oldClient = /registered client (\S+)/.exec(first.stderr)![1]!;

  where.issuer = b.issuer;
  const second = await runCli(['mcp', url, '--headless', '--no-cache'], { env });
  expect(second.code, second.stderr).toBe(0);
  expect(second.stderr).toContain(`authorization server: ${b.issuer}`);
  expect(second.stderr).toMatch(/registered client (\S+)/);
  expect(JSON.stringify(b.requests())).not.toContain(oldClient);
  // Kept per issuer: both registrations are there, each for its own server.
  expect(readdirSync(join(home, 'state', 'oauthctl', 'registrations'))).toHaveLength(2);
});
