// oauthctl discover and oauthctl register against the mock and against hostile servers, in-process over real HTTP on loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockConfigInput, type MockServer } from '../../../src/mock/index.js';
import { runCli } from '../../daily/helpers/io.js';
import { homeEnv } from '../../helpers/cli.js';

let mock: MockServer | undefined;
const servers: Server[] = [];
let home: string;
let env: Record<string, string>;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-discover-'));
  env = homeEnv(home);
});
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  rmSync(home, { recursive: true, force: true });
});

const start = async (config: MockConfigInput = {}) => (mock = await createMockServer(config, { autoLogin: 'alice' }));

/** A server on loopback whose answers `routes` makes, given the request and its own origin. */
async function fakeServer(routes: (path: string, origin: string, body: string) => { status: number; headers?: Record<string, string>; body?: string } | undefined): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const answer = routes(req.url ?? '/', `http://${req.headers.host}`, body) ?? { status: 404, body: '{}' };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('oauthctl discover', () => {
  it("walks the mock's chain from its API: what each document says, no inconsistency, exit 0", async () => {
    const m = await start();
    const r = await runCli(['discover', m.baseUrl], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`==> Protected resource ${m.baseUrl}`);
    expect(r.stdout).toContain(`metadata from the 401's resource_metadata: ${m.authUrl}/.well-known/oauth-protected-resource/api`);
    expect(r.stdout).toContain(`==> Authorization server ${m.issuer}`);
    expect(r.stdout).toMatch(/PKCE: S256/);
    expect(r.stdout).toContain(`registration: ${m.authUrl}/register`);
    expect(r.stdout).toContain('client ID metadata documents: supported');
    expect(r.stdout).toContain('the chain holds');
    const json = await runCli(['discover', m.baseUrl, '--json'], env);
    const chain = JSON.parse(json.stdout) as { kind: string; ok: boolean; servers: { summary: Record<string, unknown> }[] };
    expect(chain).toMatchObject({ kind: 'resource', ok: true });
    expect(chain.servers[0]!.summary.registration_endpoint).toBe(`${m.authUrl}/register`);
  });

  it('an issuer URL is discovered as an issuer', async () => {
    const m = await start();
    const r = await runCli(['discover', m.issuer, '--json'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'issuer', ok: true });
  });

  it('a broken chain exits 1 and names each section broken', async () => {
    const m = await start();
    const rs = await fakeServer((path, origin) =>
      path === '/mcp'
        ? { status: 401, headers: { 'www-authenticate': 'Bearer realm="x"' } }
        : path === '/.well-known/oauth-protected-resource/mcp'
          ? { status: 200, body: JSON.stringify({ resource: `${origin}/other`, authorization_servers: [m.issuer] }) }
          : undefined,
    );
    const r = await runCli(['discover', `${rs}/mcp`], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('the 401 has no resource_metadata in its WWW-Authenticate challenge (RFC 9728 section 5.1)');
    expect(r.stdout).toMatch(/✗ the metadata's resource http:\/\/127\.0\.0\.1:\d+\/other is not .* \(RFC 9728 section 3\.3\)/);
    expect(r.stdout).toContain('the chain breaks');
  });

  it('escape sequences in every remote field it prints are shown escaped, never raw', async () => {
    const evil = 'ev\u001b]52;c;cHduZWQ=\u0007il\u001b[2J\u009b31m\nFAKE LINE';
    const as = await fakeServer((path, origin) =>
      path === '/.well-known/oauth-authorization-server'
        ? {
            status: 200,
            body: JSON.stringify({
              issuer: origin,
              authorization_endpoint: `${origin}/authorize`,
              token_endpoint: `${origin}/token`,
              code_challenge_methods_supported: [evil],
              grant_types_supported: [evil],
              token_endpoint_auth_methods_supported: [evil],
              registration_endpoint: `${origin}/${evil}`,
              dpop_signing_alg_values_supported: [evil],
              pushed_authorization_request_endpoint: `${origin}/${evil}`,
              scopes_supported: [evil],
            }),
          }
        : undefined,
    );
    const rs = await fakeServer((path, origin) =>
      path === '/r'
        ? { status: 401, headers: { 'www-authenticate': `Bearer resource_metadata="${origin}/meta"` } }
        : path === '/meta'
          ? {
              status: 200,
              body: JSON.stringify({
                resource: `${origin}/r`,
                authorization_servers: [as],
                scopes_supported: [evil],
                bearer_methods_supported: [evil],
                dpop_signing_alg_values_supported: [evil],
                resource_name: evil,
              }),
            }
          : undefined,
    );
    const r = await runCli(['discover', `${rs}/r`], env);
    expect(r.stdout + r.stderr).not.toMatch(/[\u001b\u0007\u009b]/);
    expect(r.stdout).not.toMatch(/^FAKE LINE/m);
    expect(r.stdout).toContain('\\x1b]52');
    const json = await runCli(['discover', `${rs}/r`, '--json'], env);
    expect(json.stdout).not.toMatch(/[\u001b\u0007\u009b]/);
    expect((JSON.parse(json.stdout) as { resource: { metadata: { resource_name: string } } }).resource.metadata.resource_name).toBe(evil);
  });

  it('bad input exits 2 with one line', async () => {
    const r = await runCli(['discover', 'not a url'], env);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('oauthctl register (RFC 7591, RFC 7592)', () => {
  it('registers, keeps the registration, saves a profile that logs in, and --delete removes it at the server', async () => {
    const m = await start();
    const r = await runCli(['register', '--issuer', m.issuer, '--client-name', 'my cli', '--scope', 'photo', '--save-profile', 'dyn', '--json', '--verbose'], env);
    expect(r.code).toBe(0);
    const reg = JSON.parse(r.stdout) as Record<string, string>;
    expect(reg).toMatchObject({ client_name: 'my cli', token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1/callback'] });
    // The result on stdout holds the registration access token; the --verbose trace on stderr does not.
    expect(r.stderr).not.toContain(reg.registration_access_token);
    expect(r.stderr).toMatch(/"registration_access_token":"\[redacted \d+ chars\]"/);
    const login = await runCli(['login', '--profile', 'dyn', '--headless', '--username', 'alice', '--password', 'wonderland'], env);
    expect(login.code).toBe(0);
    const del = await runCli(['register', '--delete', '--issuer', m.issuer], env);
    expect(del.code).toBe(0);
    expect((await fetch(reg.registration_client_uri!, { headers: { authorization: `Bearer ${reg.registration_access_token}` } })).status).toBe(401);
    const again = await runCli(['register', '--delete', '--issuer', m.issuer], env);
    expect(again.code).toBe(2);
  });

  it('with an initial access token; without it, one line saying to give it', async () => {
    const m = await start({ registration: { initial_access_token: 'initial-token-1' } });
    const no = await runCli(['register', '--issuer', m.issuer], env);
    expect(no.code).toBe(1);
    expect(no.stderr).toContain('give --initial-access-token T');
    const yes = await runCli(['register', '--issuer', m.issuer, '--initial-access-token', 'initial-token-1'], env);
    expect(yes.code).toBe(0);
    expect(yes.stdout).toMatch(/^client_id=dyn-/);
  });

  it('the RFC 7591 error of the server is shown (invalid_redirect_uri)', async () => {
    const m = await start();
    const r = await runCli(['register', '--issuer', m.issuer, '--redirect-uri', 'http://evil.example/cb'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('invalid_redirect_uri');
  });

  it('a registration response that changes the redirect URIs is refused and nothing is kept', async () => {
    const as = await fakeServer((path, origin, body) => {
      if (path === '/.well-known/oauth-authorization-server')
        return { status: 200, body: JSON.stringify({ issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, registration_endpoint: `${origin}/register` }) };
      if (path === '/register') return { status: 201, body: JSON.stringify({ ...(JSON.parse(body) as object), client_id: 'c1', redirect_uris: ['https://attacker.example/cb'] }) };
      return undefined;
    });
    const r = await runCli(['register', '--issuer', as], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the server registered other redirect URIs than asked (https://attacker.example/cb instead of http://127.0.0.1/callback)');
    const login = await runCli(['login', '--issuer', as, '--register', '--headless', '--username', 'a', '--password', 'b'], env);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('other redirect URIs');
  });
});
