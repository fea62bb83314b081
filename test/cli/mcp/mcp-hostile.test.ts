// `oauthctl mcp` against hostile MCP servers on loopback: escape sequences in results and errors, an
// event-stream flood, a huge body, a 401 that never ends, metadata for another resource, an
// authorization server without PKCE S256, an unknown protocol version. Each ends in one line, exit 1.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { homeEnv, runCli } from '../../helpers/cli.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse, origin: string) => void;

const servers: Server[] = [];
let mock: MockServer | undefined;
let home: string;
let env: Record<string, string>;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-mcp-hostile-'));
  env = homeEnv(home);
});
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  await mock?.close();
  mock = undefined;
  rmSync(home, { recursive: true, force: true });
});

async function serve(handler: Handler): Promise<string> {
  let origin = '';
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => handler(req, body, res, origin));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return origin;
}

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
};

/** An MCP server that needs no token: initialize answered, notifications accepted, `answer` for the rest. */
function openServer(answer: (message: { id: number; method: string }, res: ServerResponse) => void): Handler {
  return (_req, body, res) => {
    const message = JSON.parse(body) as { id: number; method: string };
    if (message.method === 'initialize')
      return json(res, 200, { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'x', version: '1' } } });
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    answer(message, res);
  };
}

describe('hostile MCP servers', () => {
  it('escape sequences in a result and in an error message never reach the terminal raw', async () => {
    const url = `${await serve(openServer((m, res) => json(res, 200, { jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'x\u001b]52;c;cHduZWQ=\u0007\u009b2J' }] } })))}/mcp`;
    const ok = await runCli(['mcp', url], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).not.toMatch(/[\u001b\u0007\u009b]/);
    expect(JSON.parse(ok.stdout)).toEqual({ tools: [{ name: 'x\u001b]52;c;cHduZWQ=\u0007\u009b2J' }] });

    const bad = `${await serve(openServer((m, res) => json(res, 200, { jsonrpc: '2.0', id: m.id, error: { code: -1, message: 'boom\u001b[2J\nsecond line' } })))}/mcp`;
    const err = await runCli(['mcp', bad], { env });
    expect(err.code).toBe(1);
    expect(err.stderr).not.toMatch(/[\u001b]/);
    expect(err.stderr).toMatch(/JSON-RPC error -1: boom\\x1b\[2J\\x0asecond line\n$/);
  });

  it('an event stream of endless messages is refused in one line', async () => {
    const url = `${await serve(
      openServer((m, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`${'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n'.repeat(5000)}data: {"jsonrpc":"2.0","id":${m.id},"result":{}}\n\n`);
      }),
    )}/mcp`;
    const r = await runCli(['mcp', url], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/oauthctl: error: the MCP server's answer to tools\/list is not valid: the event stream has more than 1000 events/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a body larger than the HTTP limit is cut off', async () => {
    const url = `${await serve(
      openServer((_m, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = 'x'.repeat(1024 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < 12 && res.write(chunk)) sent++;
          if (sent < 12) res.once('drain', pump);
          else res.end();
        };
        res.on('error', () => undefined);
        pump();
      }),
    )}/mcp`;
    const r = await runCli(['mcp', url], { env });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^oauthctl: error: .*(larger|too large|MiB|bytes)/i);
  });

  it('a 401 that every token gets ends after a bounded number of authorizations', async () => {
    const origin = await serve((req, _body, res, o) => {
      if (req.url === '/.well-known/oauth-protected-resource/mcp') return json(res, 200, { resource: `${o}/mcp`, authorization_servers: [mock!.issuer], scopes_supported: ['photo'] });
      json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${o}/.well-known/oauth-protected-resource/mcp"` });
    });
    mock = await createMockServer({ resources: [`${origin}/mcp`] }, { autoLogin: 'alice' });
    const r = await runCli(['mcp', `${origin}/mcp`, '--headless'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr.match(/==> Authorization request/g)).toHaveLength(3);
    expect(r.stderr).toContain('still answers HTTP 401 to tools/list after 3 authorizations: giving up');
  });

  it('resource metadata for another resource is refused before any authorization (RFC 9728 section 3.3)', async () => {
    const elsewhere = await serve((_req, _body, res) => json(res, 200, { resource: 'https://evil.example/mcp', authorization_servers: ['https://evil.example'] }));
    const url = `${await serve((_req, _body, res) => json(res, 401, {}, { 'www-authenticate': `Bearer resource_metadata="${elsewhere}/prm"` }))}/mcp`;
    const r = await runCli(['mcp', url, '--headless'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the metadata URL is on another host');
    expect(r.stderr).toMatch(/oauthctl: error: the metadata's resource https:\/\/evil\.example\/mcp is not .*RFC 9728 section 3\.3/);
    expect(r.stderr).not.toContain('Client identity');
  });

  it('an authorization server whose metadata lacks S256 is refused', async () => {
    const url = `${await serve((req, _body, res, o) => {
      if (req.url === '/.well-known/oauth-protected-resource/mcp') return json(res, 200, { resource: `${o}/mcp`, authorization_servers: [`${o}/as`] });
      if (req.url === '/.well-known/oauth-authorization-server/as')
        return json(res, 200, { issuer: `${o}/as`, authorization_endpoint: `${o}/as/authorize`, token_endpoint: `${o}/as/token`, code_challenge_methods_supported: ['plain'] });
      json(res, 401, {}, { 'www-authenticate': 'Bearer' });
    })}/mcp`;
    const r = await runCli(['mcp', url, '--headless'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/does not list S256 in code_challenge_methods_supported \(plain\): an MCP client must not proceed/);
  });

  it('discover asks a URL whose GET is answered 405 again with a POST of initialize, and takes its 401', async () => {
    const origin = await serve((req, _body, res, o) => {
      if (req.url === '/.well-known/oauth-protected-resource/rpc') return json(res, 200, { resource: `${o}/rpc`, authorization_servers: [mock!.issuer] });
      if (req.method === 'GET') return json(res, 405, {});
      json(res, 401, {}, { 'www-authenticate': `Bearer resource_metadata="${o}/.well-known/oauth-protected-resource/rpc"` });
    });
    mock = await createMockServer({ resources: [`${origin}/rpc`] });
    const r = await runCli(['discover', `${origin}/rpc`], { env });
    expect(r.stdout).toContain(`GET ${origin}/rpc -> HTTP 405 (not a 401: asking again as MCP clients do, with a POST of initialize)`);
    expect(r.stdout).toContain(`POST ${origin}/rpc -> HTTP 401 (WWW-Authenticate names resource_metadata`);
    expect(r.stdout).toContain(`==> Authorization server ${mock.issuer}`);
  });

  it('a protocol version oauthctl does not speak ends the session', async () => {
    const url = `${await serve((_req, body, res) => {
      const m = JSON.parse(body) as { id: number };
      json(res, 200, { jsonrpc: '2.0', id: m.id, result: { protocolVersion: '1999-01-01', capabilities: {} } });
    })}/mcp`;
    const r = await runCli(['mcp', url, '--mcp-version', '2025-11-25'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('answered initialize with protocol version "1999-01-01", which oauthctl does not speak');
  });
});
