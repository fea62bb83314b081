// login --device, client-credentials, token-exchange, introspect, userinfo and revoke against the mock,
// in-process, over real HTTP on loopback.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT } from '../../helpers/chromium.js';
import { createMockServer, type MockConfigInput, type MockServer, type MockServerOptions } from '../../../src/mock/index.js';
import { runToken } from '../../../src/cli/token/token.js';
import { FAKE_BROWSER, homeEnv } from '../../helpers/cli.js';
import { runCli, testIO } from '../../daily/helpers/io.js';

let mock: MockServer | undefined;
let home: string;
let env: Record<string, string>;

async function startMock(config: MockConfigInput = { device_interval: 1 }, options: MockServerOptions = {}): Promise<MockServer> {
  mock = await createMockServer(config, options);
  return mock;
}

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-grants-'));
  env = homeEnv(home);
});
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  rmSync(home, { recursive: true, force: true });
});

const cachedEntries = () => {
  const dir = join(home, 'state', 'oauthctl', 'tokens');
  return readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>);
};
const SERVICE = (m: MockServer) => ['--auth-url', m.authUrl, '--client-id', 'photo-service', '--client-secret', 'photo-service-secret'];

describe('login --device (RFC 8628)', () => {
  it('--headless completes the verification page, polls, checks the ID token and caches the login', async () => {
    const m = await startMock();
    const r = await runCli(
      ['login', '--device', '--auth-url', m.authUrl, '--client-id', 'photo-cli', '--scope', 'photo openid', '--headless', '--username', 'alice', '--password', 'wonderland', '--json'],
      env,
    );
    expect(r.stderr).toMatch(new RegExp(`open this page on any device:\\n\\n    ${m.authUrl}/device\\n\\nand enter the code:\\n\\n    [A-Z]{4}-[A-Z]{4}\\n`));
    expect(r.stderr).toMatch(/✓ nonce|✓ signature/);
    expect(r.stderr).not.toContain('wonderland');
    expect(r.code).toBe(0);
    const tokens = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(decodeJwt(String(tokens.access_token)).sub).toBe('alice');
    expect(cachedEntries()).toEqual([expect.objectContaining({ client_id: 'photo-cli', access_token: tokens.access_token })]);
    expect((await runCli(['token', '--auth-url', m.authUrl, '--client-id', 'photo-cli'], env)).stdout.trim()).toBe(tokens.access_token);
  });

  it.skipIf(!existsSync('/usr/bin/chromium'))(
    '--headless --browser-driver chromium completes the verification page in a real browser',
    async () => {
      const m = await startMock();
      const file = join(home, 'device.har');
      const r = await runCli(
        [
          'login',
          '--device',
          '--auth-url',
          m.authUrl,
          '--client-id',
          'photo-cli',
          '--scope',
          'photo',
          '--headless',
          '--browser-driver',
          'chromium',
          '--username',
          'alice',
          '--password',
          'wonderland',
          '--trace',
          file,
        ],
        env,
      );
      expect(r.stderr).toMatch(/==> Verification page \(Chromium\)/);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^access_token=/);
      // --trace holds the verification pages as Chromium fetched them, the password scrubbed.
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain('wonderland');
      const entries = (JSON.parse(text) as { log: { entries: { request: { method: string; url: string }; _oauthctl: { actor: string } }[] } }).log.entries;
      const browser = entries.filter((e) => e._oauthctl.actor === 'user-agent').map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`);
      expect(browser).toContain('GET /device');
      expect(browser.filter((p) => p.startsWith('POST ')).length).toBeGreaterThan(0);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it('the browser opens verification_uri_complete, which the mock with --auto-login approves; no QR code off a terminal', async () => {
    const m = await startMock({ device_interval: 1 }, { autoLogin: 'alice' });
    const r = await runCli(['login', '--device', '--auth-url', m.authUrl, '--client-id', 'photo-cli', '--scope', 'photo'], { ...env, BROWSER: FAKE_BROWSER });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^access_token=/);
    expect(r.stderr).not.toMatch(/scan this/);
  });

  it('denied at the consent page: exit 1 with one line', async () => {
    const m = await startMock();
    const r = await runCli(
      ['login', '--device', '--auth-url', m.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--headless', '--username', 'alice', '--password', 'wonderland', '--consent', 'deny'],
      env,
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').pop()).toMatch(
      /^oauthctl: error: the authorization server answered access_denied.* \(the user denied access at the verification page: start again and approve the request\)$/,
    );
  });

  it('a client the server refuses the grant to: the device authorization error, exit 1; no endpoint known: exit 2', async () => {
    const m = await startMock();
    const refused = await runCli(['login', '--device', '--no-browser', ...SERVICE(m)], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/device authorization request was refused: unauthorized_client/);
    const none = await runCli(['login', '--device', '--no-browser', '--token-endpoint', `${m.authUrl}/token`, '--client-id', 'photo-cli'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no device authorization endpoint known/);
  });
});

describe('client-credentials (RFC 6749 section 4.4)', () => {
  it('prints the token response, caches it, and `token` asks anew (no refresh token) once it has expired', async () => {
    const m = await startMock();
    const r = await runCli(['client-credentials', ...SERVICE(m), '--scope', 'photo', '--json'], env);
    expect(r.code).toBe(0);
    const tokens = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'photo' });
    expect(tokens.refresh_token).toBeUndefined();
    expect(cachedEntries()).toEqual([expect.objectContaining({ grant: 'client_credentials', client_id: 'photo-service', scope: 'photo' })]);

    const later = testIO(env);
    const code = await runToken({ authUrl: m.authUrl, clientId: 'photo-service', clientSecret: 'photo-service-secret', json: true }, later, () => Date.now() + 2 * 3600 * 1000);
    expect(code).toBe(0);
    const renewed = JSON.parse(later.out()) as Record<string, unknown>;
    expect(renewed.refreshed).toBe(true);
    expect(renewed.access_token).not.toBe(tokens.access_token);
    expect(decodeJwt(String(renewed.access_token))).toMatchObject({ sub: 'photo-service', scope: 'photo' });
  });

  it('a public client is refused with unauthorized_client (exit 1)', async () => {
    const m = await startMock();
    const pub = await runCli(['client-credentials', '--auth-url', m.authUrl, '--client-id', 'photo-cli'], env);
    expect(pub.code).toBe(1);
    expect(pub.stderr).toMatch(/warning: the client credentials grant is for confidential clients/);
    expect(pub.stderr.trim().split('\n').pop()).toMatch(/^oauthctl: error: unauthorized_client: /);
  });
});

describe('token-exchange (RFC 8693)', () => {
  it('exchanges the cached login token by default, with an actor token; shows issued_token_type', async () => {
    const m = await startMock({ device_interval: 1 }, { autoLogin: 'alice' });
    expect((await runCli(['login', '--device', '--auth-url', m.authUrl, '--client-id', 'photo-cli', '--scope', 'photo'], { ...env, BROWSER: FAKE_BROWSER })).code).toBe(0);
    const actor = JSON.parse((await runCli(['client-credentials', ...SERVICE(m), '--no-cache', '--json'], env)).stdout) as { access_token: string };
    const r = await runCli(['token-exchange', ...SERVICE(m), '--actor-token', actor.access_token, '--json'], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/issued_token_type: urn:ietf:params:oauth:token-type:access_token/);
    const exchanged = JSON.parse(r.stdout) as { access_token: string };
    expect(decodeJwt(exchanged.access_token)).toMatchObject({ sub: 'alice', client_id: 'photo-service', act: { sub: 'photo-service' } });
  });

  it('an audience outside the policy: invalid_target, exit 1', async () => {
    const m = await startMock();
    const subject = JSON.parse((await runCli(['client-credentials', ...SERVICE(m), '--no-cache', '--json'], env)).stdout) as { access_token: string };
    const r = await runCli(['token-exchange', ...SERVICE(m), '--subject-token', subject.access_token, '--audience', 'https://elsewhere.example'], env);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').pop()).toMatch(/^oauthctl: error: invalid_target: /);
  });
});

describe('introspect, userinfo and revoke', () => {
  it('introspect says active with subject, client, scope and expiry in words, then inactive after revoke', async () => {
    const m = await startMock();
    expect((await runCli(['client-credentials', ...SERVICE(m), '--scope', 'photo'], env)).code).toBe(0);
    const active = await runCli(['introspect', ...SERVICE(m)], env);
    expect(active.code).toBe(0);
    expect(active.stdout).toMatch(/^active\nsubject: photo-service\nclient: photo-service\nscope: photo\n/);
    expect(active.stdout).toMatch(/expires: .* \(in (59|60) min\)/);
    const json = await runCli(['introspect', ...SERVICE(m), '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ active: true, sub: 'photo-service' });
    const revoked = await runCli(['revoke', ...SERVICE(m), '--token-type-hint', 'access_token'], env);
    expect(revoked.code).toBe(0);
    const after = await runCli(['introspect', ...SERVICE(m), '--json'], env);
    expect(JSON.parse(after.stdout)).toEqual({ active: false });
    const garbage = await runCli(['introspect', 'not-a-token', ...SERVICE(m)], env);
    expect(garbage.stdout).toMatch(/^inactive/);
  });

  it('userinfo with the cached login, the endpoint from the metadata; a token without openid is refused (exit 1)', async () => {
    const m = await startMock({ device_interval: 1 }, { autoLogin: 'alice' });
    expect((await runCli(['login', '--device', '--auth-url', m.authUrl, '--client-id', 'photo-cli', '--scope', 'openid profile email'], { ...env, BROWSER: FAKE_BROWSER })).code).toBe(0);
    const r = await runCli(['userinfo', '--auth-url', m.authUrl, '--client-id', 'photo-cli', '--json'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com' });
    const service = JSON.parse((await runCli(['client-credentials', ...SERVICE(m), '--no-cache', '--json'], env)).stdout) as { access_token: string };
    const refused = await runCli(['userinfo', '--auth-url', m.authUrl, '--token', service.access_token], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/userinfo endpoint answered HTTP (401|403)/);
  });

  it('a server control sequence in a claim is shown escaped', async () => {
    const m = await startMock({ device_interval: 1, users: [{ username: 'eve', password: 'pw', claims: { name: 'Eve\u001b[2J\u001b]52;c;aGk=\u0007' } }] }, { autoLogin: 'eve' });
    expect((await runCli(['login', '--device', '--auth-url', m.authUrl, '--client-id', 'photo-cli', '--scope', 'openid profile'], { ...env, BROWSER: FAKE_BROWSER })).code).toBe(0);
    const r = await runCli(['userinfo', '--auth-url', m.authUrl, '--client-id', 'photo-cli'], env);
    expect(r.stdout).toContain('name: Eve\\x1b[2J\\x1b]52;c;aGk=\\x07');
    expect(r.stdout).not.toContain('\u001b');
  });
});
