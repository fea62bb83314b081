// --protected-resource, register and the resource-side cache against the mock, in-process, over real HTTP on loopback.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockConfigInput, type MockServer } from '../../../src/mock/index.js';
import { runCli } from '../../daily/helpers/io.js';
import { homeEnv } from '../../helpers/cli.js';

let mock: MockServer | undefined;
const servers: Server[] = [];
let home: string;
let env: Record<string, string>;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-resource-'));
  env = homeEnv(home);
});
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  rmSync(home, { recursive: true, force: true });
});

const start = async (config: MockConfigInput = {}) => (mock = await createMockServer(config, { autoLogin: 'alice' }));
const HEADLESS = ['--headless', '--username', 'alice', '--password', 'wonderland'];

type Answer = { status: number; headers?: Record<string, string>; body?: string } | undefined;

/** A resource server on loopback that answers each path with what `routes` says. */
async function fakeResource(routes: (path: string, origin: string) => Answer): Promise<string> {
  const server = createServer((req, res) => {
    const origin = `http://${req.headers.host}`;
    const answer = routes(req.url ?? '/', origin) ?? { status: 404, body: '{}' };
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body ?? '');
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('login --protected-resource (RFC 9728, RFC 8707)', () => {
  it('finds the server from the 401, registers, logs in with resource=URL, caches under the resource; call and token find it', async () => {
    const m = await start({ protected_resources: [{ path: '/mcp', scopes: ['photo', 'profile'] }] });
    const mcp = `${m.authUrl}/mcp`;
    const r = await runCli(['login', '--protected-resource', mcp, ...HEADLESS, '--json'], env);
    expect(r.stderr).toContain(`GET ${mcp} -> HTTP 401 (WWW-Authenticate names resource_metadata ${m.authUrl}/.well-known/oauth-protected-resource/mcp)`);
    expect(r.stderr).toContain('registered client dyn-');
    expect(r.code).toBe(0);
    const token = (JSON.parse(r.stdout) as { access_token: string }).access_token;
    expect(decodeJwt(token)).toMatchObject({ aud: mcp, scope: 'photo profile' });
    const authorize = m.requests().find((q) => q.path === '/authorize')!;
    expect(new URLSearchParams(authorize.query).get('resource')).toBe(mcp);
    // The registration is kept (0600) and reused; the login is cached under the resource.
    const regDir = join(home, 'state', 'oauthctl', 'registrations');
    expect(statSync(join(regDir, readdirSync(regDir)[0]!)).mode & 0o777).toBe(0o600);
    const again = await runCli(['login', '--protected-resource', mcp, ...HEADLESS], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/Using the client dyn-\S+ registered at/);
    expect(m.requests().filter((q) => q.path === '/register')).toHaveLength(1);
    const call = await runCli(['call', mcp], env);
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ resource: mcp, sub: 'alice' });
    const t = await runCli(['token', '--protected-resource', mcp], env);
    expect(t.code).toBe(0);
    expect(decodeJwt(t.stdout.trim()).aud).toBe(mcp);
  });

  it("the scope of the 401's challenge is the default, and --client-id skips registration", async () => {
    const m = await start();
    const r = await runCli(['login', '--protected-resource', `${m.baseUrl}`, '--client-id', 'photo-cli', ...HEADLESS, '--json'], env);
    expect(r.code).toBe(0);
    expect(decodeJwt((JSON.parse(r.stdout) as { access_token: string }).access_token)).toMatchObject({ aud: m.baseUrl, scope: 'photo' });
    expect(m.requests().some((q) => q.path === '/register')).toBe(false);
  });

  it('a resource that does not match stops the flow, naming RFC 9728 section 3.3; a prefix is a warning', async () => {
    const m = await start();
    const other = await fakeResource((path, origin) =>
      path === '/mcp'
        ? { status: 401, headers: { 'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` } }
        : path === '/.well-known/oauth-protected-resource/mcp'
          ? { status: 200, body: JSON.stringify({ resource: 'https://bank.example/api', authorization_servers: [m.issuer] }) }
          : undefined,
    );
    const r = await runCli(['login', '--protected-resource', `${other}/mcp`, '--client-id', 'photo-cli', ...HEADLESS], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/resource https:\/\/bank\.example\/api is not http:\/\/127\.0\.0\.1:\d+\/mcp: the metadata must not be used \(RFC 9728 section 3\.3\)/);
    expect(m.requests().some((q) => q.path === '/authorize')).toBe(false);
  });

  it('a metadata URL on another host is said; its resource still decides', async () => {
    const m = await start();
    const metadataHost = await fakeResource((path) =>
      path === '/meta' ? { status: 200, body: JSON.stringify({ resource: 'http://elsewhere.invalid/x', authorization_servers: [m.issuer] }) } : undefined,
    );
    const rs = await fakeResource((path) =>
      path === '/api' ? { status: 401, headers: { 'www-authenticate': `Bearer resource_metadata="${metadataHost.replace('127.0.0.1', 'localhost')}/meta"` } } : undefined,
    );
    const r = await runCli(['login', '--protected-resource', `${rs}/api`, '--client-id', 'photo-cli', ...HEADLESS], env);
    expect(r.stderr).toContain('the metadata URL is on another host');
    expect(r.stderr).toContain('(RFC 9728 section 7.3)');
    expect(r.code).toBe(1);
  });

  it('several authorization servers: --issuer chooses, else one clear line lists them (exit 2)', async () => {
    const m = await start();
    const rs = await fakeResource((path, origin) =>
      path === '/.well-known/oauth-protected-resource/api'
        ? { status: 200, body: JSON.stringify({ resource: `${origin}/api`, authorization_servers: ['https://a.example', m.issuer] }) }
        : { status: 401 },
    );
    const r = await runCli(['login', '--protected-resource', `${rs}/api`, '--client-id', 'photo-cli', ...HEADLESS], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the resource names 2 authorization servers: https://a.example, ${m.issuer} (choose one with --issuer URL)`);
  });

  it('a metadata document that redirects is not followed, and a huge one is refused', async () => {
    const rs = await fakeResource((path, origin): Answer => {
      if (path === '/a') return { status: 401, headers: { 'www-authenticate': `Bearer resource_metadata="${origin}/moved"` } };
      if (path === '/moved') return { status: 302, headers: { location: 'http://169.254.169.254/latest' } };
      if (path === '/b') return { status: 401, headers: { 'www-authenticate': `Bearer resource_metadata="${origin}/big"` } };
      if (path === '/big') return { status: 200, body: JSON.stringify({ resource: `${origin}/b`, pad: 'x'.repeat(10_000_000) }) };
      return undefined;
    });
    const a = await runCli(['login', '--protected-resource', `${rs}/a`, '--client-id', 'x', ...HEADLESS], env);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('/moved -> HTTP 302 (a redirect, not followed)');
    expect(a.stderr).toContain('no protected resource metadata found');
    const b = await runCli(['login', '--protected-resource', `${rs}/b`, '--client-id', 'x', ...HEADLESS], env);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('is larger than 256 KiB');
  });
});

describe('--client-id URL: a Client ID Metadata Document', () => {
  it('is sent as is, with none authentication, and the mock fetches the document', async () => {
    const m = await start({ client_id_metadata_documents: { allow_http_loopback: true } });
    const host = await fakeResource((path, origin) =>
      path === '/oauthctl.json' ? { status: 200, body: JSON.stringify({ client_id: `${origin}/oauthctl.json`, client_name: 'doc', redirect_uris: ['http://127.0.0.1/callback'] }) } : undefined,
    );
    const clientId = `${host}/oauthctl.json`;
    const r = await runCli(['login', '--protected-resource', m.baseUrl, '--client-id', clientId, ...HEADLESS, '--json'], env);
    expect(r.code).toBe(0);
    expect(decodeJwt((JSON.parse(r.stdout) as { access_token: string }).access_token)).toMatchObject({ client_id: clientId, aud: m.baseUrl });
    const token = m.requests().find((q) => q.path === '/token')!;
    expect(new URLSearchParams(token.form).get('client_id')).toBe(clientId);
    expect(m.requests().some((q) => q.path === '/register')).toBe(false);
  });
});

describe('login --register', () => {
  it('a kept registration for another redirect URI is not reused: a new client is registered', async () => {
    const m = await start();
    const first = await runCli(['login', '--issuer', m.issuer, '--register', '--scope', 'photo', ...HEADLESS], env);
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(['login', '--issuer', m.issuer, '--register', '--scope', 'photo', '--redirect-uri', 'http://localhost/other', ...HEADLESS], env);
    expect(second.code, second.stderr).toBe(0);
    expect(m.requests().filter((q) => q.path === '/register')).toHaveLength(2);
  });
});
