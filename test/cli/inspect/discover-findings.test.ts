// discover on hostile discovery documents on loopback, through the built CLI: a non-URL among the
// authorization_servers, and credential endpoints on another host, are findings in every output.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server on loopback answering JSON documents by path (given its own origin). */
async function documents(routes: (path: string, origin: string) => { status: number; headers?: Record<string, string>; body?: unknown } | undefined): Promise<string> {
  const server = createServer((req, res) => {
    const answer = routes(req.url ?? '/', `http://${req.headers.host}`) ?? { status: 404, body: {} };
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An authorization server's RFC 8414 metadata, its endpoints on its own host unless `override` says otherwise. */
const asMetadata = (origin: string, override: Record<string, unknown> = {}) => ({
  issuer: origin,
  authorization_endpoint: `${origin}/authorize`,
  token_endpoint: `${origin}/token`,
  code_challenge_methods_supported: ['S256'],
  registration_endpoint: `${origin}/register`,
  ...override,
});

async function authorizationServer(override: Record<string, unknown> = {}): Promise<string> {
  return documents((path, origin) => (path === '/.well-known/oauth-authorization-server' ? { status: 200, body: asMetadata(origin, override) } : undefined));
}

async function resourceNaming(authorizationServers: string[]): Promise<string> {
  return documents((path, origin) =>
    path === '/mcp'
      ? { status: 401, headers: { 'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` } }
      : path === '/.well-known/oauth-protected-resource/mcp'
        ? { status: 200, body: { resource: `${origin}/mcp`, authorization_servers: authorizationServers } }
        : undefined,
  );
}

describe('authorization_servers holding a non-URL', () => {
  it('prints the chain so far, names each bad entry escaped, walks the good one, exit 1', async () => {
    const good = await authorizationServer();
    const rs = await resourceNaming(['javascript:alert(1)', 'file:///etc/passwd', 'https://as.example/\x1b]52;c;SGk=\x07\u009b2J', good]);
    const r = await runCli(['discover', `${rs}/mcp`]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/Invalid URL|\n\s+at /);
    expect(r.stdout).toContain(`==> Protected resource ${rs}/mcp`);
    expect(r.stdout).toContain('✗ authorization_servers entry "javascript:alert(1)" is a javascript: URL, not an https one');
    expect(r.stdout).toContain('✗ authorization_servers entry "file:///etc/passwd" is a file: URL');
    expect(r.stdout).toContain('"https://as.example/\\u001b]52;c;SGk=\\u0007\\x9b2J" holds spaces or control characters');
    expect(r.stdout).not.toMatch(/[\x1b\x07\u009b]/);
    expect(r.stdout).toContain(`==> Authorization server ${good}`);
    expect(r.stdout).toContain('the chain breaks');
    const json = await runCli(['discover', `${rs}/mcp`, '--json']);
    expect(json.code).toBe(1);
    const chain = JSON.parse(json.stdout) as { ok: boolean; servers: { issuer: string }[]; findings: { level: string; text: string; rule: string }[] };
    expect(chain.ok).toBe(false);
    expect(chain.servers.map((s) => s.issuer)).toEqual([good]);
    expect(chain.findings.filter((f) => f.rule === 'RFC 8414 section 2' && f.level === 'error')).toHaveLength(3);
  });

  it('login --protected-resource stops on it in one line, exit 1', async () => {
    const rs = await resourceNaming(['javascript:alert(1)']);
    const r = await runCli(['login', '--protected-resource', `${rs}/mcp`, '--headless', '--username', 'a', '--password', 'b', '--timeout', '10']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('authorization_servers entry "javascript:alert(1)" is a javascript: URL');
    expect(r.stderr).not.toMatch(/Invalid URL|\n\s+at /);
  });
});

describe('a token endpoint on another host than the issuer', () => {
  it('is a finding in the text, in --json, and the exit is 1', async () => {
    const as = await authorizationServer({ token_endpoint: 'http://127.0.0.2:9/token', revocation_endpoint: 'http://127.0.0.2:9/revoke' });
    const r = await runCli(['discover', as]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ the metadata puts token_endpoint on 127.0.0.2:9, another host than the issuer');
    expect(r.stdout).toContain('✗ the metadata puts revocation_endpoint on 127.0.0.2:9');
    expect(r.stdout).toContain('(RFC 9700 section 4.4)');
    expect(r.stdout).toContain('the chain breaks');
    expect(r.stdout).not.toContain('the chain holds');
    const json = await runCli(['discover', as, '--json']);
    expect(json.code).toBe(1);
    const chain = JSON.parse(json.stdout) as { ok: boolean; findings: { level: string; text: string }[] };
    expect(chain.ok).toBe(false);
    expect(chain.findings.map((f) => f.text)).toEqual([expect.stringContaining('puts token_endpoint on 127.0.0.2:9'), expect.stringContaining('puts revocation_endpoint on 127.0.0.2:9')]);
  });

  it('from a resource too: the server it names puts its token endpoint elsewhere', async () => {
    const as = await authorizationServer({ token_endpoint: 'http://127.0.0.2:9/token' });
    const rs = await resourceNaming([as]);
    const r = await runCli(['discover', `${rs}/mcp`, '--json']);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { findings: { rule: string }[] }).findings).toContainEqual(expect.objectContaining({ level: 'error', rule: 'RFC 9700 section 4.4' }));
  });

  it('warnings alone: the chain holds, said with the count, exit 0', async () => {
    const as = await authorizationServer({ registration_endpoint: undefined });
    const r = await runCli(['discover', as]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('! ');
    expect(r.stdout).toContain('the chain holds, with 1 warning(s) to check (!)');
  });
});
