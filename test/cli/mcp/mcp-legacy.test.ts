// `oauthctl mcp` against an MCP server of the 2025-03-26 revision: no protected resource metadata; its
// origin is the authorization server, with RFC 8414 metadata or, without it, /authorize, /token and
// /register there. A server on loopback that records what the client asked.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { homeEnv, runCli } from '../../helpers/cli.js';

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
}

let server: Server | undefined;
let home: string | undefined;
afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((r) => server!.close(() => r()));
  }
  server = undefined;
  if (home) rmSync(home, { recursive: true, force: true });
});

/** A 2025-03-26 server; `metadata` at its origin's well-known URL, or none. */
async function legacyServer(withMetadata: boolean): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  let origin = '';
  const prefix = withMetadata ? '/oauth' : '';
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', origin);
      seen.push({ method: req.method ?? '', path: u.pathname, query: u.searchParams, body });
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
      if (withMetadata && u.pathname === '/.well-known/oauth-authorization-server') {
        return json(200, {
          issuer: `${origin}${prefix}`,
          authorization_endpoint: `${origin}${prefix}/authorize`,
          token_endpoint: `${origin}${prefix}/token`,
          registration_endpoint: `${origin}${prefix}/register`,
          code_challenge_methods_supported: ['S256'],
        });
      }
      if (u.pathname === `${prefix}/register`)
        return json(201, { client_id: 'legacy-client', redirect_uris: (JSON.parse(body) as { redirect_uris: string[] }).redirect_uris, token_endpoint_auth_method: 'none' });
      if (u.pathname === `${prefix}/authorize`) {
        const back = new URL(u.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', 'legacy-code');
        back.searchParams.set('state', u.searchParams.get('state')!);
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if (u.pathname === `${prefix}/token`) return json(200, { access_token: 'legacy-token', token_type: 'Bearer', expires_in: 3600 });
      if (u.pathname === '/mcp' && req.method === 'POST') {
        if (req.headers.authorization !== 'Bearer legacy-token') return json(401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer' });
        const m = JSON.parse(body) as { id?: number; method: string };
        if (m.id === undefined) return res.writeHead(202).end();
        if (m.method === 'initialize')
          return json(200, { jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 'legacy', version: '1' } } });
        return json(200, { jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'old', inputSchema: { type: 'object' } }] } });
      }
      json(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${origin}/mcp`, seen };
}

describe('an MCP server of the 2025-03-26 revision', () => {
  it.each([
    ['with authorization server metadata at its origin', true],
    ['without any metadata: the default endpoints', false],
  ])('%s', async (_title, withMetadata) => {
    const { url, seen } = await legacyServer(withMetadata);
    home = mkdtempSync(join(tmpdir(), 'oauthctl-mcp-legacy-'));
    const r = await runCli(['mcp', url, '--headless'], { env: homeEnv(home) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ tools: [{ name: 'old', inputSchema: { type: 'object' } }] });
    expect(r.stderr).toContain(`treating ${url} as a server of the 2025-03-26 revision`);
    // Both resource metadata locations tried first, then the origin's metadata.
    const paths = seen.map((s) => `${s.method} ${s.path}`);
    expect(paths).toEqual(expect.arrayContaining(['GET /.well-known/oauth-protected-resource/mcp', 'GET /.well-known/oauth-protected-resource', 'GET /.well-known/oauth-authorization-server']));
    const prefix = withMetadata ? '/oauth' : '';
    expect(paths).toContain(`POST ${prefix}/register`);
    const authorize = seen.find((s) => s.path === `${prefix}/authorize`)!;
    expect(authorize.query.get('code_challenge_method')).toBe('S256');
    expect(authorize.query.get('resource')).toBe(url);
    const token = new URLSearchParams(seen.find((s) => s.path === `${prefix}/token`)!.body);
    expect(token.get('resource')).toBe(url);
    expect(token.get('code_verifier')).toMatch(/^[\w.~-]{43,128}$/);
    if (!withMetadata) expect(r.stderr).toContain('the default endpoints');
  });
});
