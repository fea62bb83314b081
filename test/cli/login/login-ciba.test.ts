// login --ciba (OpenID Connect CIBA Core 1.0): the built CLI in a child process against the mock
// in-process, and against hostile servers, over real HTTP on loopback.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockConfigInput, type MockServer, type MockServerOptions } from '../../../src/mock/index.js';
import { CIBA_GRANT } from '../../../src/oauth/ciba.js';
import { homeEnv, runCli } from '../../helpers/cli.js';
import { Browser, formFields } from '../../mock/helpers.js';

let mock: MockServer | undefined;
let hostile: Server | undefined;
let home: string;
let env: Record<string, string>;

async function startMock(config: MockConfigInput = { device_interval: 1 }, options: MockServerOptions = {}): Promise<MockServer> {
  mock = await createMockServer(config, options);
  return mock;
}

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-ciba-'));
  env = homeEnv(home);
});
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  if (hostile) await new Promise((resolve) => hostile!.close(resolve));
  hostile = undefined;
  rmSync(home, { recursive: true, force: true });
});

const WEB = (m: MockServer) => ['--auth-url', m.authUrl, '--client-id', 'photo-web', '--client-secret', 'photo-web-secret'];
const cachedEntries = () => {
  const dir = join(home, 'state', 'oauthctl', 'tokens');
  return readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>);
};

/** The user at the mock's approval page: signs in, waits until the request shows, then decides. */
async function decideAtPage(m: MockServer, decision: 'approve' | 'deny', expectMessage?: string): Promise<void> {
  const browser = new Browser();
  const signIn = formFields(await (await browser.request(`${m.authUrl}/ciba`)).text());
  await browser.submit(`${m.authUrl}/ciba`, { ...signIn, username: 'alice', password: 'wonderland' });
  for (;;) {
    const page = await (await browser.request(`${m.authUrl}/ciba`)).text();
    if (page.includes('name="request"')) {
      if (expectMessage !== undefined) expect(page).toContain(expectMessage);
      const done = await browser.submit(`${m.authUrl}/ciba`, { ...formFields(page), decision });
      expect(done.status).toBe(200);
      return;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('login --ciba, poll mode', () => {
  it('asks, polls until the user approves at the page, checks the ID token and caches the login', async () => {
    const m = await startMock();
    const run = runCli(['login', '--ciba', '--login-hint', 'alice@example.com', '--binding-message', 'Order 42', ...WEB(m), '--scope', 'photo', '--json', '--verbose'], { env });
    await decideAtPage(m, 'approve', 'Order 42');
    const r = await run;
    expect(r.stderr).toContain('Backchannel authentication request');
    expect(r.stderr).toContain('scope: openid added');
    expect(r.stderr).toMatch(/Approve on your device the request showing:\n\s+Order 42/);
    expect(r.stderr).toContain('✓ signature');
    expect(r.stderr).not.toContain('photo-web-secret');
    expect(r.code).toBe(0);
    const tokens = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(decodeJwt(String(tokens.id_token))).toMatchObject({ sub: 'alice', aud: 'photo-web' });
    expect(cachedEntries()).toEqual([expect.objectContaining({ client_id: 'photo-web', access_token: tokens.access_token })]);
  });

  it('authorization_pending is narrated with --verbose; a refusal is access_denied in one line, exit 1', async () => {
    const m = await startMock();
    const run = runCli(['login', '--ciba', '--login-hint', 'alice', ...WEB(m), '--verbose'], { env });
    while (!m.requests().some((e) => e.path === '/token' && e.error === 'authorization_pending')) await new Promise((resolve) => setTimeout(resolve, 20));
    await decideAtPage(m, 'deny');
    const r = await run;
    expect(r.stderr).toContain('poll: authorization_pending; next in 1 s');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/oauthctl: error: the authorization server answered access_denied: .*\(the user refused the request on the authentication device\)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('expired_token from the server is explained in one line, exit 1', async () => {
    const m = await startMock({ device_interval: 1, device_code_lifetime: 60 }, { autoLogin: 'alice' });
    // A server that says expired_token although its acknowledgement said 60 s: the client explains it.
    m.enqueue({ endpoint: 'token', status: 400, error: 'expired_token', error_description: 'gone' });
    const r = await runCli(['login', '--ciba', '--login-hint', 'alice', ...WEB(m)], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the authorization server answered expired_token: gone (the request expired before the user decided');
  });

  it('with --auto-login the request is approved at once; an unknown user is unknown_user_id, exit 1', async () => {
    const m = await startMock({ device_interval: 1 }, { autoLogin: 'alice' });
    const ok = await runCli(['login', '--ciba', '--login-hint', 'alice', '--acr-values', '1', '--requested-expiry', '60', ...WEB(m), '--json'], { env });
    expect(ok.code).toBe(0);
    expect(decodeJwt(String((JSON.parse(ok.stdout) as Record<string, unknown>).access_token)).sub).toBe('alice');
    const unknown = await runCli(['login', '--ciba', '--login-hint', 'mallory', ...WEB(m)], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('the backchannel authentication request was refused: unknown_user_id');
  });
});

describe('login --ciba: client authentication as configured, and an ID token as the hint', () => {
  it('private_key_jwt, then --id-token-hint with the ID token it got', async () => {
    const depth = JSON.parse(readFileSync('fixtures/audit/depth.json', 'utf8')) as { clients: { client_id: string; jwks?: unknown }[] };
    const jwks = depth.clients.find((c) => c.client_id === 'photo-jwt')!.jwks;
    const m = await startMock(
      { device_interval: 1, clients: [{ client_id: 'kiosk-jwt', token_endpoint_auth_method: 'private_key_jwt', jwks: jwks as never, grant_types: [CIBA_GRANT] }] },
      { autoLogin: 'alice' },
    );
    const client = ['--auth-url', m.authUrl, '--client-id', 'kiosk-jwt', '--auth-method', 'private_key_jwt', '--signing-key', 'fixtures/mock/photo-jwt.key.pem', '--json', '--no-cache'];
    const first = await runCli(['login', '--ciba', '--login-hint', 'alice', ...client], { env });
    expect(first.code, first.stderr).toBe(0);
    const idToken = String((JSON.parse(first.stdout) as Record<string, unknown>).id_token);
    const request = m.requests().find((e) => e.path === '/backchannel');
    expect(request?.form).toMatchObject({ client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', login_hint: 'alice', scope: 'openid' });
    const second = await runCli(['login', '--ciba', '--id-token-hint', idToken, ...client], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(decodeJwt(String((JSON.parse(second.stdout) as Record<string, unknown>).id_token)).sub).toBe('alice');
    expect(
      m
        .requests()
        .filter((e) => e.path === '/backchannel')
        .pop()?.form,
    ).toMatchObject({ id_token_hint: idToken });
  });
});

describe('login --ciba, ping mode', () => {
  async function freePort(): Promise<number> {
    const s = createServer();
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const { port } = s.address() as AddressInfo;
    await new Promise((resolve) => s.close(resolve));
    return port;
  }

  it('listens at the registered notification endpoint, is pinged with its fresh token, then gets the tokens', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}/cb`;
    const m = await startMock({
      clients: [{ client_id: 'pinger', client_secret: 'ping-secret', grant_types: [CIBA_GRANT], backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: endpoint }],
    });
    const run = runCli(
      [
        'login',
        '--ciba',
        '--ciba-mode',
        'ping',
        '--client-notification-endpoint',
        endpoint,
        '--login-hint',
        'alice',
        '--auth-url',
        m.authUrl,
        '--client-id',
        'pinger',
        '--client-secret',
        'ping-secret',
        '--json',
      ],
      { env },
    );
    // A forged ping (no token, then a guessed one) is refused and changes nothing.
    for (;;) {
      const forged = await fetch(endpoint, { method: 'POST', body: '{"auth_req_id":"x"}', headers: { 'content-type': 'application/json' } }).catch(() => undefined);
      if (forged) {
        expect(forged.status).toBe(401);
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await fetch(endpoint, { method: 'POST', body: '{"auth_req_id":"x"}', headers: { authorization: 'Bearer guessed' } })).status).toBe(401);
    await decideAtPage(m, 'approve');
    const r = await run;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('the server pinged');
    expect(r.stderr).toContain('notification endpoint: refused a ping without the client notification token');
    expect(decodeJwt(String((JSON.parse(r.stdout) as Record<string, unknown>).id_token)).sub).toBe('alice');
    const ping = m.requests().find((e) => e.endpoint === 'ciba_ping');
    expect(ping).toMatchObject({ status: 204 });
  });
});

describe('login --ciba, bad input and hostile servers', () => {
  it('refuses bad flags in one line, exit 2', async () => {
    const m = await startMock();
    for (const [args, message] of [
      [['--ciba'], '--login-hint or --id-token-hint is missing'],
      [['--ciba', '--login-hint', 'a', '--id-token-hint', 'b'], 'cannot be used together'],
      [['--ciba', '--login-hint', 'a', '--ciba-mode', 'push'], '--ciba-mode must be poll or ping'],
      [['--ciba', '--login-hint', 'a', '--ciba-mode', 'ping', '--client-notification-endpoint', 'http://10.0.0.1:80/cb'], 'must be http on 127.0.0.1'],
      [['--ciba', '--login-hint', 'a', '--client-notification-endpoint', 'http://127.0.0.1:9/cb'], 'only for --ciba-mode ping'],
      [['--login-hint', 'a'], '--login-hint is only for login --ciba'],
      [['--ciba', '--device', '--login-hint', 'a'], 'cannot be used together'],
    ] as const) {
      const r = await runCli(['login', ...args, ...WEB(m)], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it("escapes a hostile server's error text and says when it offers no CIBA", async () => {
    hostile = createServer((req, res) => {
      if (req.url?.startsWith('/.well-known/')) {
        const base = `http://127.0.0.1:${(hostile!.address() as AddressInfo).port}`;
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ issuer: base, token_endpoint: `${base}/token`, backchannel_authentication_endpoint: `${base}/bc` }));
      }
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'unknown_user_id', error_description: '\u001b]0;pwned\u0007\u001b[2Jgone' }));
    });
    await new Promise<void>((resolve) => hostile!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    const r = await runCli(['login', '--ciba', '--login-hint', 'a', '--issuer', base, '--client-id', 'c', '--client-secret', 's'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown_user_id');
    expect(r.stderr).not.toContain('\u001b');
    const m = await startMock();
    const none = await runCli(['login', '--ciba', '--login-hint', 'a', '--token-endpoint', `${m.authUrl}/token`, '--client-id', 'photo-web', '--client-secret', 'photo-web-secret'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no backchannel authentication endpoint known');
  });
});
