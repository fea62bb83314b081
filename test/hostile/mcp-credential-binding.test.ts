// Issue 40, point 4: a pre-registered client's secret goes only to the authorization server it is bound
// to. An MCP server on loopback first names the real authorization server (the mock), then a second one
// (a recording server): the secret never reaches the second, with or without --issuer.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { homeEnv, runCli } from '../helpers/cli.js';

const SECRET = 'svc-secret-never-elsewhere';
const servers: Server[] = [];
let mock: MockServer | undefined;
let home: string;
let env: Record<string, string>;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-binding-'));
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

async function listen(
  handler: (req: { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: string }, res: ServerResponse, origin: string) => void,
): Promise<string> {
  let origin = '';
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => handler({ method: req.method!, url: req.url!, headers: req.headers, body }, res, origin));
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

/** A second authorization server that records everything sent to it and issues whatever is asked. */
async function recordingAuthorizationServer(): Promise<{ issuer: string; received: string[] }> {
  const received: string[] = [];
  const issuer = await listen((req, res, origin) => {
    received.push(`${req.method} ${req.url} ${JSON.stringify(req.headers.authorization ?? '')} ${req.body}`);
    if (req.url === '/.well-known/oauth-authorization-server') {
      return json(res, 200, { issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, code_challenge_methods_supported: ['S256'] });
    }
    if (req.url === '/token') return json(res, 200, { access_token: 'stolen', token_type: 'Bearer', expires_in: 60 });
    json(res, 404, {});
  });
  return { issuer, received };
}

/** An MCP server whose resource metadata names `where.issuer`; it takes any bearer token. */
async function mcpServer(where: { issuer: string }): Promise<string> {
  const origin = await listen((req, res, o) => {
    if (req.method === 'GET' && req.url === '/.well-known/oauth-protected-resource/mcp') return json(res, 200, { resource: `${o}/mcp`, authorization_servers: [where.issuer] });
    if (req.headers.authorization === undefined) {
      return json(res, 401, {}, { 'www-authenticate': `Bearer resource_metadata="${o}/.well-known/oauth-protected-resource/mcp"` });
    }
    const message = JSON.parse(req.body) as { id?: number; method: string };
    if (message.id === undefined) return void res.writeHead(202).end();
    if (message.method === 'initialize')
      return json(res, 200, { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'm', version: '1' } } });
    json(res, 200, { jsonrpc: '2.0', id: message.id, result: { tools: [] } });
  });
  return `${origin}/mcp`;
}

describe('mcp: credentials given on the command line are bound to their authorization server', () => {
  it('bound at first use (named), then a second server the MCP server names later never sees the secret', async () => {
    const where = { issuer: '' };
    const url = await mcpServer(where);
    mock = await createMockServer({
      clients: [{ client_id: 'svc', client_secret: SECRET, grant_types: ['client_credentials'], scopes: ['photo'] }],
      resources: [url],
    });
    where.issuer = mock.issuer;
    const args = ['mcp', url, '--client-credentials', '--client-id', 'svc', '--no-cache'];
    const first = await runCli(args, { env: { ...env, OAUTHCTL_CLIENT_SECRET: SECRET } });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(new RegExp(`the credentials of client svc \\(client secret\\) go to ${mock.issuer}, the server this MCP server names; they are bound to it from now on`));
    expect(first.stderr).not.toContain(SECRET);

    const evil = await recordingAuthorizationServer();
    where.issuer = evil.issuer;
    const second = await runCli([...args, '--client-secret', SECRET], { env });
    expect(second.code).toBe(1);
    expect(second.stderr.trim().split('\n').at(-1)).toMatch(
      new RegExp(
        `^oauthctl: error: the MCP server now names the authorization server ${evil.issuer}, but the credentials of client svc \\(client secret\\) are bound to ${mock.issuer}: they are not sent there \\(if .* really is this client's server, give --issuer`,
      ),
    );
    expect(evil.received.join('\n')).not.toContain(SECRET);
    expect(evil.received.filter((r) => r.startsWith('POST'))).toEqual([]);
  });

  it('--issuer binds them: an MCP server naming another server is refused before any token request', async () => {
    const evil = await recordingAuthorizationServer();
    const url = await mcpServer({ issuer: evil.issuer });
    mock = await createMockServer();
    const r = await runCli(['mcp', url, '--client-credentials', '--client-id', 'svc', '--client-secret', SECRET, '--issuer', mock.issuer, '--no-cache'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`--issuer ${mock.issuer} is not one of the resource's authorization servers: ${evil.issuer}`));
    expect(evil.received.join('\n')).not.toContain(SECRET);
  });

  it('a signing key is bound as a secret is', async () => {
    const evil = await recordingAuthorizationServer();
    const where = { issuer: 'http://127.0.0.1:9' };
    const url = await mcpServer(where);
    // A binding to another server exists: this run must not go to the recording server.
    const { saveClientBinding } = await import('../../src/store/client-bindings.js');
    await saveClientBinding(env, { version: 1, client_id: 'svc', issuer: 'http://127.0.0.1:9', bound_at: 0 });
    where.issuer = evil.issuer;
    const key = join(home, 'key.json');
    const { keyPairSync } = await import('../helpers/keys.js');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(key, JSON.stringify(keyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })));
    const r = await runCli(['mcp', url, '--client-credentials', '--client-id', 'svc', '--auth-method', 'private_key_jwt', '--signing-key', key, '--no-cache'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the credentials of client svc \(signing key\) are bound to http:\/\/127\.0\.0\.1:9: they are not sent there/);
    expect(evil.received.filter((x) => x.startsWith('POST'))).toEqual([]);
  });
});
