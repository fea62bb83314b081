import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import type { AuditReport } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { startOidcProvider, type OidcProviderServer } from './helpers/oidc-provider.js';

const SECRET = 'web-app-secret-0123456789abcdef0123456789abcdef';
let op: OidcProviderServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(async () => {
  await op.close();
});

describe('interop: login --headless against panva/oidc-provider 9 (development interactions)', () => {
  const login = (...args: string[]) => ['login', '--issuer', op.issuer, '--scope', 'openid', '--headless', '--username', 'bob', '--password', 'anything', '--json', '--timeout', '15', ...args];

  it('public native client with PKCE: fills `login` and `password`, presses Continue on consent', async () => {
    const io = memoryIO();
    const code = await run(login('--client-id', 'native-cli', '--pkce', '--verbose'), io);
    expect(code).toBe(0);
    const tokens = JSON.parse(io.out()) as Record<string, unknown>;
    expect(typeof tokens.access_token).toBe('string');
    expect(typeof tokens.id_token).toBe('string');
    expect(io.err()).toContain('login=bob (account name)');
    expect(io.err()).toContain('consent: approve with button "Continue"');
  });

  it('confidential client with a client secret', async () => {
    const io = memoryIO();
    const code = await run(login('--client-id', 'web-app', '--client-secret', SECRET), io);
    expect(code).toBe(0);
    expect(JSON.parse(io.out())).toHaveProperty('access_token');
  });

  it('--consent deny follows the [ Cancel ] link and ends with access_denied', async () => {
    const io = memoryIO();
    const code = await run(login('--client-id', 'native-cli', '--pkce', '--consent', 'deny'), io);
    expect(code).toBe(1);
    expect(io.err()).toMatch(/oauthctl: error: the authorization server answered access_denied: End-User aborted interaction/);
  });
});

describe('interop: audit against panva/oidc-provider 9', () => {
  const audit = async (...args: string[]) => {
    const io = memoryIO();
    // prompt=consent: oidc-provider grants offline_access (and so a refresh token) only with it.
    const code = await run(['audit', '--issuer', op.issuer, '--scope', 'openid', '--param', 'prompt=consent', '--username', 'bob', '--password', 'anything', '--json', ...args], io);
    const report = JSON.parse(io.out()) as AuditReport;
    return { code, report, status: Object.fromEntries(report.probes.map((p) => [p.id, p.status])), detail: Object.fromEntries(report.probes.map((p) => [p.id, p.detail])) };
  };

  it('public client: what the server really does', async () => {
    const { code, status, detail } = await audit('--client-id', 'native-cli', '--pkce', '--second-client-id', 'web-app', '--second-client-secret', SECRET);
    expect(status).toEqual({
      flow: 'pass',
      state: 'pass',
      // RFC 9207 is on, and the metadata says so.
      iss: 'pass',
      'code-single-use': 'pass',
      // A different redirect_uri is refused, but oidc-provider accepts a token request WITHOUT
      // redirect_uri when the client has a single registered one (no ambiguity; OAuth 2.1 behaviour).
      'code-redirect-binding': 'warn',
      'code-client-binding': 'pass',
      // PKCE is required for public clients, S256 only.
      'pkce-required': 'pass',
      'pkce-wrong-verifier': 'pass',
      'pkce-downgrade': 'pass',
      'pkce-plain': 'pass',
      'redirect-uri-exact': 'pass',
      'client-secret-wrong': 'skip',
      // The client is registered for response_type=code only.
      'implicit-refused': 'pass',
      // Public clients' refresh tokens rotate by default, and a reused one is refused.
      'refresh-rotation': 'pass',
      'https-endpoints': 'pass',
      'token-no-store': 'pass',
      'error-format': 'pass',
    });
    expect(detail['code-redirect-binding']).toMatch(/redeemed without redirect_uri/);
    expect(detail['pkce-required']).toMatch(/error=invalid_request/);
    expect(code).toBe(0);
  });

  it('confidential client: what the server really does', async () => {
    const { code, status, detail } = await audit('--client-id', 'web-app', '--client-secret', SECRET, '--second-client-id', 'native-cli');
    expect(status).toMatchObject({
      flow: 'pass',
      'code-redirect-binding': 'warn',
      'code-client-binding': 'pass',
      'pkce-required': 'skip',
      'pkce-downgrade': 'pass',
      // 401 with a WWW-Authenticate header, as RFC 6749 section 5.2 asks after Basic authentication.
      'client-secret-wrong': 'pass',
      // A confidential client's refresh token does not rotate by default: allowed by RFC 9700 §4.14.2.
      'refresh-rotation': 'pass',
      'error-format': 'pass',
    });
    expect(detail['client-secret-wrong']).toMatch(/^HTTP 401 invalid_client \(client_secret_basic\), WWW-Authenticate: Basic/);
    expect(detail['refresh-rotation']).toMatch(/^not rotated, which RFC 9700 §4.14.2 allows for a confidential client/);
    expect(Object.values(status).filter((s) => s === 'fail')).toEqual([]);
    expect(code).toBe(0);
  });
});
