import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, ROOT, runCli } from '../../helpers/cli.js';
import { Browser, postForm, startMock } from '../../mock/helpers.js';
import { browserLogin, startRelyingParty } from '../../mock/sessions/helpers.js';

const LOGIN = ['--client-id', 'photo-cli', '--scope', 'openid photo', '--headless', '--username', 'alice', '--password', 'wonderland'];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** `oauthctl listen --backchannel ...` running: resolves once it listens; `done` when it exits. */
function listenBackchannel(args: string[]): Promise<{ done: Promise<{ code: number | null; stdout: string; stderr: string }> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'listen', '--backchannel', ...args], { cwd: ROOT, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((r) => child.on('close', (code) => r({ code, stdout, stderr })));
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (/Listening for back-channel logout on/.test(stderr)) resolve({ done });
    });
    child.on('error', reject);
    void done.then((r) => reject(new Error(`listen exited early: ${r.stderr}`)));
  });
}

describe('oauthctl logout --end-session', () => {
  it('ends the session at the server through the headless agent (state checked), then revokes and forgets', async () => {
    const rp = await startRelyingParty();
    const server = await startMock({
      clients: [{ client_id: 'photo-cli', redirect_uris: ['http://127.0.0.1/callback'], post_logout_redirect_uris: ['http://127.0.0.1/callback'], backchannel_logout_uri: `${rp.url}/bc` }],
    });
    const login = await runCli(['login', '--issuer', server.issuer, ...LOGIN]);
    expect(login.code, login.stderr).toBe(0);
    expect(server.sessions()).toHaveLength(1);
    const out = await runCli(['logout', '--issuer', server.issuer, '--client-id', 'photo-cli', '--end-session', '--headless', '--json']);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ end_session_endpoint: `${server.issuer}/logout`, forgotten: true });
    expect(server.sessions()).toEqual([]);
    const logout = server.requests().find((r) => r.path === '/logout')!;
    expect(logout.query).toMatchObject({ client_id: 'photo-cli', post_logout_redirect_uri: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/) });
    expect(String(logout.query.state)).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(logout.query.id_token_hint).toBeTruthy();
    const status = await runCli(['status', '--issuer', server.issuer, '--client-id', 'photo-cli']);
    expect(status.code).toBe(1);
  }, 60_000);

  it('keeps the tokens when the server refuses the post-logout URI (an error page, no redirect), and refuses its options without --end-session', async () => {
    const stray = await runCli(['logout', '--post-logout-redirect-uri', 'http://127.0.0.1/x']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/add --end-session/);
    const server = await startMock();
    expect((await runCli(['login', '--auth-url', server.authUrl, ...LOGIN])).code).toBe(0);
    const out = await runCli(['logout', '--auth-url', server.authUrl, '--client-id', 'photo-cli', '--end-session', '--headless', '--post-logout-redirect-uri', 'http://127.0.0.1/elsewhere']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/not registered for client/);
    expect((await runCli(['status', '--auth-url', server.authUrl, '--client-id', 'photo-cli'])).code).toBe(0);
  }, 60_000);
});

describe('oauthctl listen --backchannel', () => {
  it("validates the mock's logout token by section 2.6 and prints what it says", async () => {
    const port = await freePort();
    const server = await startMock({ clients: [{ client_id: 'photo-cli', redirect_uris: ['http://127.0.0.1/callback'], backchannel_logout_uri: `http://127.0.0.1:${port}/backchannel-logout` }] });
    const { tokens } = await browserLogin(server, new Browser());
    const listening = await listenBackchannel(['--issuer', server.issuer, '--client-id', 'photo-cli', '--port', String(port), '--json']);
    server.endSession();
    const r = await listening.done;
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { valid: boolean; claims: Record<string, unknown>; problems: string[] };
    expect(report.valid).toBe(true);
    expect(report.problems).toEqual([]);
    const sid = JSON.parse(Buffer.from(String(tokens.id_token).split('.')[1]!, 'base64url').toString()).sid as string;
    expect(report.claims).toMatchObject({ iss: server.issuer, aud: 'photo-cli', sub: 'alice', sid });
    // The back-channel call is logged once its answer came: waited for, however busy the machine.
    await expect.poll(() => server.requests().find((x) => x.endpoint === 'backchannel_logout')?.status, { timeout: 30_000 }).toBe(200);
  }, 60_000);

  it('answers 400 to an ID token posted as a logout token, and names every broken rule', async () => {
    const port = await freePort();
    const server = await startMock();
    const { tokens } = await browserLogin(server, new Browser(), { nonce: 'n' });
    const listening = await listenBackchannel(['--issuer', server.issuer, '--client-id', 'photo-web', '--port', String(port)]);
    const answer = await postForm(`http://127.0.0.1:${port}/backchannel-logout`, { logout_token: String(tokens.id_token) });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const r = await listening.done;
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/NOT valid/);
    for (const rule of [/typ is "JWT"/, /events has no/, /a nonce is present/, /aud: .*photo-web/]) expect(r.stdout).toMatch(rule);
  }, 60_000);
});
