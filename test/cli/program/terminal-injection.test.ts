import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { FAKE_BROWSER, ROOT, runCli, type CliResult } from '../../helpers/cli.js';

/**
 * Hostile servers on loopback send terminal escape sequences: OSC 52 (clipboard write), CSI 2J (clear
 * screen) and the C1 CSI U+009B. None may reach stdout or stderr raw; the escaped form must.
 */
const HOSTILE = 'pwned\x1b]52;c;SGVsbG8=\x07\x1b[2J\u009b31mend\x7f';
const ESCAPED = 'pwned\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J\\x9b31mend\\x7f';
const FORGING_BROWSER = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'test', 'helpers', 'forging-browser.mjs'))}`;

function expectNoRawControls(text: string): void {
  for (const raw of ['\x1b]52', '\x1b[2J', '\u009b', '\x07', '\x7f']) expect(text).not.toContain(raw);
}

/** Both streams free of the raw sequences; with NO_COLOR (the helper's default) stderr has no ESC at all. */
function expectSafe(r: CliResult): void {
  expectNoRawControls(r.stdout);
  expectNoRawControls(r.stderr);
  expect(r.stderr).not.toContain('\x1b');
}

let as: RecordingServer;
let page: Server;
let pageUrl: string;
beforeAll(async () => {
  as = await startRecordingServer();
  // A login page that says something hostile and offers no form.
  page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><head><title>${HOSTILE}</title></head><body>${HOSTILE}</body></html>`));
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await as.close();
  await new Promise((resolve) => page.close(resolve));
});
beforeEach(() => as.reset());

const login = (args: string[], env: Record<string, string> = {}) =>
  runCli(['login', '--auth-url', as.url, '--client-id', 'photo-cli', '--timeout', '20', '--no-cache', ...args], { env: { BROWSER: FAKE_BROWSER, ...env } });

function jwt(claims: Record<string, unknown>): string {
  return [{ alg: 'RS256', kid: HOSTILE }, claims].map((p) => Buffer.from(JSON.stringify(p)).toString('base64url')).join('.') + '.c2ln';
}

describe('remote text is escaped on the terminal', () => {
  it('an error redirect: under "Redirect received" and in the failure line', async () => {
    as.authorize = { outcome: 'error', error: { error: 'access_denied', error_description: HOSTILE } };
    const r = await login([]);
    expect(r.code).toBe(1);
    expectSafe(r);
    expect(r.stderr).toContain(`error_description=${ESCAPED}`);
    expect(r.stderr).toMatch(new RegExp(`oauthctl: error: .*${ESCAPED.replace(/[\\[\]]/g, '\\$&')}`));
  });

  it('with colour on, only the painter writes ESC: the hostile sequences stay escaped', async () => {
    as.authorize = { outcome: 'error', error: { error: 'access_denied', error_description: HOSTILE } };
    const r = await login([], { NO_COLOR: '', FORCE_COLOR: '1' });
    expect(r.code).toBe(1);
    expectNoRawControls(r.stderr);
    expect(r.stderr).toContain('\x1b[1m'); // painted steps
    expect(r.stderr).toContain(ESCAPED);
  });

  it('a forged redirect needs no valid state: sent straight to the listener, it is escaped too', async () => {
    const r = await login([], { BROWSER: FORGING_BROWSER, FORGE_QUERIES: JSON.stringify([`error=${encodeURIComponent(HOSTILE)}&state=${encodeURIComponent(HOSTILE)}`]) });
    expect(r.code).toBe(1);
    expectSafe(r);
    expect(r.stderr).toContain(`state=${ESCAPED}`);
    expect(r.stderr).toMatch(/state mismatch/);
  });

  it('a token endpoint error', async () => {
    as.token = { status: 400, body: { error: 'invalid_grant', error_description: HOSTILE } };
    const r = await login([]);
    expect(r.code).toBe(1);
    expectSafe(r);
    expect(r.stderr).toContain(ESCAPED);
  });

  it('a token response: the narration and the name=value lines escaped, --json exact', async () => {
    const body = { access_token: 'at-1', token_type: 'Bearer', note: HOSTILE, access_token_jwt_claims: 'x' };
    as.token = { body: { ...body, access_token: jwt({ sub: HOSTILE, [HOSTILE]: 1 }) } };
    const r = await login(['--show-secrets']);
    expect(r.code).toBe(0);
    expectSafe(r);
    expect(r.stderr).toContain(`note: ${ESCAPED}`);
    expect(r.stderr).toContain(`sub: ${ESCAPED}`);
    expect(r.stdout).toContain(`note=${ESCAPED}`);
    const json = await login(['--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).note).toBe(HOSTILE);
    expectNoRawControls(json.stdout);
  });

  it('JWT claims in login: an ID token with hostile claims', async () => {
    as.token = { body: { access_token: 'at-1', token_type: 'Bearer', id_token: jwt({ iss: HOSTILE, aud: 'photo-cli', sub: HOSTILE, nonce: HOSTILE }) } };
    const r = await login(['--scope', 'openid']);
    expect(r.code).toBe(1);
    expectSafe(r);
    expect(r.stderr).toContain(`sub: ${ESCAPED}`);
  });

  it('JWT claims in decode; --json stays exact', async () => {
    const token = jwt({ sub: HOSTILE, [HOSTILE]: [HOSTILE], exp: 2_000_000_000 });
    const r = await runCli(['decode', token]);
    expect(r.code).toBe(0);
    expectSafe(r);
    expect(r.stdout).toContain(`sub: ${ESCAPED}`);
    expect(r.stdout).toContain(`kid: ${ESCAPED}`);
    const json = await runCli(['decode', token, '--json']);
    const doc = JSON.parse(json.stdout);
    expect(doc.claims.sub).toBe(HOSTILE);
    expect(doc.claims[HOSTILE]).toEqual([HOSTILE]);
  });

  it('page text quoted by the headless agent', async () => {
    const r = await runCli(['login', '--auth-url', pageUrl, '--client-id', 'photo-cli', '--headless', '--username', 'alice', '--password', 'wonderland', '--timeout', '20', '--no-cache']);
    expect(r.code).toBe(1);
    expectSafe(r);
    expect(r.stderr).toContain('\\x9b31mend');
  });

  it('page text in the audit detail', async () => {
    const r = await runCli(['audit', '--auth-url', pageUrl, '--client-id', 'photo-cli', '--username', 'alice', '--password', 'wonderland', '--probe', 'flow']);
    expectSafe(r);
    expect(r.stdout).toContain('pwned\\x1b]52');
  });

  it('listen: the explained capture is escaped, --json exact', async () => {
    const port = await freePort();
    const send = async () => {
      for (let i = 0; i < 100; i++) {
        try {
          await fetch(`http://127.0.0.1:${port}/callback?error=${encodeURIComponent(HOSTILE)}&error_description=${encodeURIComponent(HOSTILE)}`);
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    const [r] = await Promise.all([runCli(['listen', '--port', String(port), '--timeout', '20']), send()]);
    expect(r.code).toBe(0);
    expectSafe(r);
    expect(r.stdout).toContain(`error = ${ESCAPED}`);
    const port2 = await freePort();
    const send2 = async () => {
      for (let i = 0; i < 100; i++) {
        try {
          await fetch(`http://127.0.0.1:${port2}/callback?error=${encodeURIComponent(HOSTILE)}`);
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    const [json] = await Promise.all([runCli(['listen', '--port', String(port2), '--timeout', '20', '--json']), send2()]);
    expect(JSON.parse(json.stdout).params.error).toBe(HOSTILE);
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Every command that prints what a server said, each remote field hostile.
describe('remote text of the other grants and token commands is escaped', () => {
  it('client-credentials, token-exchange, introspect, userinfo and revoke: every remote field escaped', async () => {
    const flow = ['--token-endpoint', `${as.url}/token`, '--authorization-endpoint', `${as.url}/authorize`, '--client-id', 'svc', '--client-secret', 's'];
    as.token = { body: { access_token: 'at', token_type: HOSTILE, expires_in: 60, scope: HOSTILE, issued_token_type: HOSTILE, [HOSTILE]: HOSTILE } };
    const cc = await runCli(['client-credentials', ...flow, '--no-cache']);
    expect(cc.code).toBe(0);
    expectSafe(cc);
    expect(cc.stderr).toContain(ESCAPED);
    const te = await runCli(['token-exchange', ...flow, '--subject-token', 'x', '--requested-token-type', 'access_token']);
    expectSafe(te);
    expect(te.stderr).toContain(`issued_token_type ${ESCAPED} is not the requested_token_type`);
    as.documents.set('/introspect', { body: { active: true, sub: HOSTILE, scope: HOSTILE, client_id: HOSTILE, [HOSTILE]: HOSTILE } });
    const introspect = await runCli(['introspect', 'tok', ...flow, '--introspection-endpoint', `${as.url}/introspect`]);
    expect(introspect.code).toBe(0);
    expectSafe(introspect);
    expect(`${introspect.stdout}${introspect.stderr}`).toContain(ESCAPED);
    as.documents.set('/userinfo', { body: { sub: HOSTILE, name: HOSTILE } });
    const userinfo = await runCli(['userinfo', '--userinfo-endpoint', `${as.url}/userinfo`, '--token', 'tok']);
    expectSafe(userinfo);
    expect(`${userinfo.stdout}${userinfo.stderr}`).toContain(ESCAPED);
    as.documents.set('/revoke', { status: 400, body: { error: HOSTILE, error_description: HOSTILE } });
    const revoke = await runCli(['revoke', 'tok', ...flow, '--revocation-endpoint', `${as.url}/revoke`]);
    expect(revoke.code).toBe(1);
    expectSafe(revoke);
    expect(revoke.stderr).toContain(ESCAPED);
  });
});
