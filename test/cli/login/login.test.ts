import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { FAKE_BROWSER, runCli } from '../../helpers/cli.js';

let as: RecordingServer;
let dir: string;
beforeAll(async () => {
  as = await startRecordingServer();
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-login-'));
});
afterAll(async () => {
  await as.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => as.reset());

const env = (extra: Record<string, string> = {}) => ({ BROWSER: FAKE_BROWSER, ...extra });
const login = (args: string[], extraEnv: Record<string, string> = {}) => runCli(['login', '--auth-url', as.url, '--timeout', '20', ...args], { env: env(extraEnv) });
const basicOf = (header: unknown) => Buffer.from(String(header).replace(/^Basic /, ''), 'base64').toString();

describe('login', () => {
  it('runs the PKCE flow for a public client and prints the tokens', async () => {
    const r = await login(['--client-id', 'photo-cli', '--pkce', '--scope', 'photo+offline_access']);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    const [authorize] = as.to('/authorize');
    expect(authorize?.query).toMatchObject({ response_type: 'code', client_id: 'photo-cli', scope: 'photo offline_access', code_challenge_method: 'S256' });
    expect(authorize?.query.state?.length).toBeGreaterThanOrEqual(22);
    expect(authorize?.query.redirect_uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const [token] = as.to('/token');
    expect(token?.headers.authorization).toBeUndefined();
    expect(token?.form).toMatchObject({ grant_type: 'authorization_code', client_id: 'photo-cli', redirect_uri: authorize?.query.redirect_uri });
    expect(
      createHash('sha256')
        .update(token?.form.code_verifier ?? '')
        .digest('base64url'),
    ).toBe(authorize?.query.code_challenge);
    expect(r.stdout).toMatch(/^access_token=at-[0-9a-f]+$/m);
    expect(r.stdout).toMatch(/^refresh_token=rt-/m);
    for (const step of ['Authorization request', 'Redirect received', 'Token request', 'Token response']) expect(r.stderr).toContain(`==> ${step}`);
  });

  it('--json prints exactly the token endpoint object, one JSON document', async () => {
    const body = { access_token: 'at-fixed', token_type: 'Bearer', expires_in: 60, scope: 'photo', custom: { nested: [1, 2] } };
    as.token = { body };
    const r = await login(['--client-id', 'photo-cli', '--pkce', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(body);
  });

  it('client_secret_basic form-encodes id and secret, and keeps client_id out of the body', async () => {
    const r = await login(['--client-id', 'my client:1', '--client-secret', 'se cret:+&%', '--no-pkce']);
    expect(r.code).toBe(0);
    const [token] = as.to('/token');
    expect(basicOf(token?.headers.authorization)).toBe('my+client%3A1:se+cret%3A%2B%26%25');
    expect(token?.form.client_id).toBeUndefined();
    expect(token?.form.client_secret).toBeUndefined();
    expect(token?.form.code_verifier).toBeUndefined();
  });

  it('reads the client secret from OAUTHCTL_CLIENT_SECRET', async () => {
    const r = await login(['--client-id', 'web'], { OAUTHCTL_CLIENT_SECRET: 'from-env' });
    expect(r.code).toBe(0);
    expect(basicOf(as.to('/token')[0]?.headers.authorization)).toBe('web:from-env');
  });

  it('client_secret_post puts client_id and client_secret in the body', async () => {
    const r = await login(['--client-id', 'web', '--client-secret', 's:1', '--auth-method', 'client_secret_post']);
    expect(r.code).toBe(0);
    const [token] = as.to('/token');
    expect(token?.headers.authorization).toBeUndefined();
    expect(token?.form).toMatchObject({ client_id: 'web', client_secret: 's:1' });
  });

  it('a state mismatch exits 1 and sends no token request', async () => {
    as.authorize = { state: 'forged-state' };
    const r = await login(['--client-id', 'photo-cli', '--pkce']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/oauthctl: error: state mismatch/);
    expect(as.to('/authorize')).toHaveLength(1);
    expect(as.to('/token')).toHaveLength(0);
  });

  it('a redirect without state exits 1 and sends no token request, even when it carries an error', async () => {
    as.authorize = { state: null, outcome: 'error' };
    const r = await login(['--client-id', 'photo-cli']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no state/);
    expect(as.to('/token')).toHaveLength(0);
  });

  it('an error redirect exits 1 and shows error, error_description and error_uri', async () => {
    as.authorize = { outcome: 'error', error: { error: 'access_denied', error_description: 'The user refused', error_uri: 'https://as.example/errors/denied' } };
    const r = await login(['--client-id', 'photo-cli']);
    expect(r.code).toBe(1);
    const line = r.stderr.split('\n').find((l) => l.startsWith('oauthctl: error:'));
    expect(line).toContain('access_denied');
    expect(line).toContain('The user refused');
    expect(line).toContain('https://as.example/errors/denied');
    expect(as.to('/token')).toHaveLength(0);
  });

  it('gives up after --timeout seconds with exit 1', async () => {
    as.authorize = { outcome: 'none' };
    const r = await runCli(['login', '--auth-url', as.url, '--client-id', 'photo-cli', '--timeout', '1'], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/oauthctl: error: timed out after 1 s waiting for the redirect/);
    expect(as.to('/token')).toHaveLength(0);
  });

  it('a favicon request does not end the flow', async () => {
    const log = join(dir, 'favicon.log');
    const r = await login(['--client-id', 'photo-cli', '--pkce'], { FAKE_BROWSER_FAVICON: '1', FAKE_BROWSER_LOG: log });
    expect(r.code).toBe(0);
    expect(readFileSync(log, 'utf8')).toContain('favicon 404');
  });

  it('listens on the port the redirect URI names, on [::1] when asked', async () => {
    const r = await login(['--client-id', 'photo-cli', '--redirect-uri', 'http://[::1]/callback']);
    expect(r.code).toBe(0);
    expect(as.to('/authorize')[0]?.query.redirect_uri).toMatch(/^http:\/\/\[::1\]:\d+\/callback$/);
  });

  it('uses the redirect URI port when given', async () => {
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((res) => probe.listen(0, '127.0.0.1', res));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((res) => probe.close(() => res()));
    const r = await login(['--client-id', 'photo-cli', '--redirect-uri', `http://localhost:${port}/cb`]);
    expect(r.code).toBe(0);
    expect(as.to('/authorize')[0]?.query.redirect_uri).toBe(`http://localhost:${port}/cb`);
    expect(as.to('/token')[0]?.form.redirect_uri).toBe(`http://localhost:${port}/cb`);
  });

  it('a non-loopback redirect URI cannot be listened on: exit 2', async () => {
    const r = await login(['--client-id', 'photo-cli', '--redirect-uri', 'http://app.example.com/cb']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a loopback address/);
  });

  it.each(['fragment', 'form_post'] as const)('receives a %s response', async (mode) => {
    as.authorize = { responseMode: mode };
    const r = await login(['--client-id', 'photo-cli', '--pkce']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(mode === 'fragment' ? 'parameters in the fragment' : 'parameters in the form body');
  });

  it('--verbose redacts secrets; --show-secrets shows them', async () => {
    const args = ['--client-id', 'web', '--client-secret', 'SuperSecretValue', '--auth-method', 'client_secret_post', '--pkce', '--verbose'];
    const r = await login(args);
    expect(r.code).toBe(0);
    const verifier = as.to('/token')[0]?.form.code_verifier ?? '';
    const accessToken = /^access_token=(.*)$/m.exec(r.stdout)?.[1] ?? '';
    expect(r.stderr).toContain('> POST');
    expect(r.stderr).toContain('client_secret=[redacted 16 chars]');
    expect(r.stderr).not.toContain('SuperSecretValue');
    expect(r.stderr).not.toContain(verifier);
    expect(r.stderr).not.toContain(accessToken);

    as.reset();
    const shown = await login([...args, '--show-secrets']);
    expect(shown.code).toBe(0);
    expect(shown.stderr).toContain('SuperSecretValue');
    expect(shown.stderr).toContain(as.to('/token')[0]?.form.code_verifier ?? 'missing');
  });

  it('an RFC 6749 error from the token endpoint is one line, exit 1', async () => {
    as.token = { status: 400, body: { error: 'invalid_grant', error_description: 'code expired' } };
    const r = await login(['--client-id', 'photo-cli']);
    expect(r.code).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('oauthctl: error:'));
    expect(errors).toEqual([expect.stringMatching(/^oauthctl: error: invalid_grant: code expired \(.+\)$/)]);
    expect(r.stdout).toBe('');
  });

  it('a non-JSON 502 from the token endpoint is explained in one line, exit 1', async () => {
    as.token = { status: 502, body: '<html>Bad Gateway</html>', contentType: 'text/html' };
    const r = await login(['--client-id', 'photo-cli']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/oauthctl: error: the token endpoint failed with HTTP 502/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('--no-browser prints the URL and waits for the redirect', async () => {
    const { spawn } = await import('node:child_process');
    const { BIN, cliEnv } = await import('../../helpers/cli.js');
    const child = spawn(process.execPath, [BIN, 'login', '--auth-url', as.url, '--client-id', 'photo-cli', '--no-browser', '--json', '--timeout', '20'], { env: cliEnv() });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    const url = await new Promise<string>((resolve) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += String(d);
        const m = /^\s+(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr);
        if (m?.[1]) resolve(m[1]);
      });
    });
    const redirect = await fetch(url, { redirect: 'manual' });
    await fetch(redirect.headers.get('location') ?? '');
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(stdout).access_token).toMatch(/^at-/);
  });

  it('when BROWSER cannot be launched it stops at once with the ways on, without waiting for the timeout', async () => {
    as.authorize = { outcome: 'none' };
    const r = await runCli(['login', '--auth-url', as.url, '--client-id', 'photo-cli', '--timeout', '300'], { env: { BROWSER: '/nonexistent/browser --flag' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot run BROWSER "\/nonexistent\/browser".*--headless.*--no-browser/);
    expect(r.stderr).not.toMatch(/timed out/);
  });

  it('--call calls the API with the new token and prints its body', async () => {
    const r = await login(['--client-id', 'photo-cli', '--call', `${as.url}/api`]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true });
    expect(as.to('/api')[0]?.headers.authorization).toMatch(/^Bearer at-/);
  });
});
