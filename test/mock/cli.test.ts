import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { runServeMock } from '../../src/cli/mock/serve-mock.js';
import { memoryIO } from '../helpers/io.js';
import { pkceTokens } from './helpers.js';

describe('oauthctl serve-mock (in-process)', () => {
  it('prints the URLs and default credentials, logs each request as one line, stops on abort', async () => {
    const io = memoryIO();
    const stop = new AbortController();
    const done = runServeMock({ port: 0 }, io, stop.signal);
    while (!io.out().includes('Press Ctrl+C')) await new Promise((r) => setTimeout(r, 10));
    // Secrets are redacted without --show-secrets, the documented defaults too (as with --config).
    expect(io.out()).toMatch(/alice \/ \[redacted 10 chars\]/);
    expect(io.out()).toMatch(/photo-web \(secret \[redacted 16 chars\], client_secret_basic or client_secret_post\)/);
    expect(io.out()).toContain('secrets            redacted (--show-secrets prints them; the defaults: serve-mock --help)');
    expect(io.out()).not.toMatch(/wonderland|photo-web-secret/);
    expect(io.out()).toMatch(/photo-cli \(public, no secret, PKCE required\)/);
    const issuer = /issuer, auth_url\s+(\S+)/.exec(io.out())![1]!;
    await fetch(`${issuer}/authorize?client_id=photo-cli`);
    stop.abort();
    expect(await done).toBe(0);
    expect(io.err()).toMatch(/GET \/authorize 400 client=photo-cli error page error=invalid_request \(the request has no redirect_uri parameter/);
  });

  it('--json logs JSON lines; a custom config hides secrets unless --show-secrets', async () => {
    const io = memoryIO();
    const stop = new AbortController();
    const done = runServeMock({ port: 0, config: 'fixtures/mock/minimal.json', quiet: false }, io, stop.signal);
    while (!io.out().includes('Press Ctrl+C')) await new Promise((r) => setTimeout(r, 10));
    expect(io.out()).toMatch(/carol \/ \[redacted 12 chars\]/);
    stop.abort();
    await done;
  });

  it('--show-secrets prints them, with or without --config', async () => {
    for (const options of [{}, { config: 'fixtures/mock/minimal.json' }]) {
      const io = memoryIO();
      const stop = new AbortController();
      const done = runServeMock({ port: 0, showSecrets: true, ...options }, io, stop.signal);
      while (!io.out().includes('Press Ctrl+C')) await new Promise((r) => setTimeout(r, 10));
      expect(io.out()).not.toContain('[redacted');
      expect(io.out()).toMatch(/ \/ \S+/);
      stop.abort();
      await done;
    }
  });

  it('--quiet prints one line, where it listens (what a script backgrounding it needs), and logs nothing', async () => {
    const io = memoryIO();
    const stop = new AbortController();
    const done = runServeMock({ port: 0, quiet: true }, io, stop.signal);
    while (!io.out().includes('\n')) await new Promise((r) => setTimeout(r, 10));
    expect(io.out()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
    const meta = await fetch(`${io.out().trim()}/.well-known/openid-configuration`);
    expect(meta.status).toBe(200);
    stop.abort();
    expect(await done).toBe(0);
    expect(io.out().split('\n')).toHaveLength(2);
    expect(io.err()).toBe('');
  });
});

describe('oauthctl serve-mock (process)', () => {
  it('--json prints exactly one line once listening, logs JSON to stderr, exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/oauthctl.js', 'serve-mock', '--port', '0', '--json', '--auto-login', 'alice'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const lines = createInterface({ input: child.stdout });
      const [first] = (await once(lines, 'line')) as [string];
      const urls = JSON.parse(first) as Record<string, string>;
      expect(Object.keys(urls)).toEqual(['issuer', 'auth_url', 'base_url']);
      expect(urls.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(urls.base_url).toBe(`${urls.auth_url}/api`);
      const meta = await fetch(`${urls.issuer}/.well-known/openid-configuration`);
      expect(meta.status).toBe(200);
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      await new Promise((r) => setTimeout(r, 50));
      const closed = once(child, 'close');
      child.kill('SIGTERM');
      const [code] = (await closed) as [number];
      expect(code).toBe(0);
      const entry = JSON.parse(stderr.trim().split('\n')[0]!) as Record<string, unknown>;
      expect(entry).toMatchObject({ method: 'GET', path: '/.well-known/openid-configuration', status: 200, outcome: 'ok' });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('--access-token-format opaque issues opaque tokens that the API accepts; a bad value exits 2 with one line', async () => {
    const bad = spawnSync(process.execPath, ['bin/oauthctl.js', 'serve-mock', '--access-token-format', 'reference'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^oauthctl: error: --access-token-format must be jwt or opaque, not "reference"/);
    const child = spawn(
      process.execPath,
      ['bin/oauthctl.js', 'serve-mock', '--port', '0', '--json', '--quiet', '--auto-login', 'alice', '--access-token-format', 'opaque', '--config', 'fixtures/mock/fast.json'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const { issuer, base_url: baseUrl } = JSON.parse(first) as Record<string, string>;
      const server = { authUrl: issuer, baseUrl } as Parameters<typeof pkceTokens>[0];
      const tokens = await pkceTokens(server);
      expect(String(tokens.access_token)).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const api = await fetch(`${baseUrl}/photos`, { headers: { authorization: `Bearer ${String(tokens.access_token)}` } });
      expect(api.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('an invalid --config exits 2 with one line naming the field', () => {
    const result = spawnSync(process.execPath, ['bin/oauthctl.js', 'serve-mock', '--config', 'fixtures/mock/minimal.json', '--auto-login', 'alice'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^oauthctl: error: auto-login: no user "alice"/);
    const missing = spawnSync(process.execPath, ['bin/oauthctl.js', 'serve-mock', '--config', 'no/such/file.json'], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    const invalid = spawnSync(process.execPath, ['bin/oauthctl.js', 'serve-mock', '--config', 'test/mock/bad-config.json'], { encoding: 'utf8' });
    expect(invalid.status).toBe(2);
    expect(invalid.stderr).toMatch(/^oauthctl: error: invalid configuration in test\/mock\/bad-config\.json: clients\[1\]\.redirect_uris\[0\]: must be an absolute URL/);
    expect(missing.stderr).toMatch(/^oauthctl: error: no\/such\/file\.json: cannot read the file \(ENOENT\)/);
  });
});
