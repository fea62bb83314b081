import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { PROBES, RUN_FIRST } from '../../src/audit/probes/index.js';
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

/** The probes that run first; the others run against this server in test/audit/depth/oidc-provider.test.ts. */
const RUN_FIRST_ONLY = [
  '--skip',
  PROBES.filter((p) => !RUN_FIRST.includes(p.id))
    .map((p) => p.id)
    .join(','),
];

describe('interop: audit against panva/oidc-provider 9', () => {
  const audit = async (...args: string[]) => {
    const io = memoryIO();
    // prompt=consent: oidc-provider grants offline_access (and so a refresh token) only with it.
    const code = await run(['audit', '--issuer', op.issuer, '--scope', 'openid', '--param', 'prompt=consent', '--username', 'bob', '--password', 'anything', '--json', ...RUN_FIRST_ONLY, ...args], io);
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
      // An invalid request with an unregistered redirect URI gets its error page.
      'open-redirector': 'pass',
      'client-secret-wrong': 'skip',
      // The client is registered for response_type=code only.
      'implicit-refused': 'pass',
      // Public clients' refresh tokens rotate by default, and a reused one is refused.
      'refresh-rotation': 'pass',
      // Signed with a key of its JWKS; iss, aud, exp, iat, nonce and at_hash right.
      'id-token': 'pass',
      'token-post-only': 'pass',
      // It refuses any repeated parameter (invalid_request) and ignores unknown ones.
      'repeated-params': 'pass',
      'unknown-params': 'pass',
      // The development login page sends neither X-Frame-Options nor frame-ancestors (a deployment adds
      // them, or frame-busting script, which the audit cannot see): a warning, not a failure.
      framing: 'warn',
      metadata: 'pass',
      jwks: 'pass',
      // client_credentials is on, and a public client asking for it with its client_id alone is refused,
      // but with invalid_request ("requested grant type is not allowed for this client") rather than
      // RFC 6749's unauthorized_client.
      'client-credentials-public': 'warn',
      // The device flow is on, but native-cli is not registered for it (skipped with the server's answer).
      'device-code-single-use': 'skip',
      'device-slow-down': 'skip',
      'device-unknown-user-code': 'skip',
      // RP-initiated logout is on: an unregistered post-logout URI gets its error page, prompt=none
      // login_required, max_age=0 a new sign-in; its prompt=none gives the audit's client no silent
      // code even without a hint, so the id_token_hint probe has nothing to compare with.
      'post-logout-redirect-exact': 'pass',
      'prompt-none-login-required': 'pass',
      'max-age-reauth': 'pass',
      'id-token-hint-other-user': 'skip',
      'https-endpoints': 'pass',
      // http on loopback: nothing to check.
      tls: 'skip',
      'token-no-store': 'pass',
      'error-format': 'pass',
      // oidc-provider lists no token exchange grant.
      'token-exchange-type': 'skip',
      // PAR and DPoP are on by default in oidc-provider 9; PAR is not required server-wide, and a
      // request_uri lives 60 s, longer than the audit waits for one to expire.
      'par-required': 'skip',
      'par-single-use': 'pass',
      'par-client-binding': 'pass',
      'par-expiry': 'skip',
      'dpop-replay': 'pass',
      'dpop-htm-htu': 'pass',
      'dpop-bound-as-bearer': 'pass',
      // The client authenticates with no JWT; request objects are off by default.
      'client-assertion-replay': 'skip',
      'client-assertion-audience': 'skip',
      'client-assertion-expired': 'skip',
      'jar-unsigned': 'skip',
    });
    expect(detail['code-redirect-binding']).toMatch(/redeemed without redirect_uri/);
    expect(detail['id-token-hint-other-user']).toMatch(/prompt=none gives no code/);
    expect(detail['device-slow-down']).toMatch(/issues no device code to native-cli: invalid_request/);
    expect(detail['pkce-required']).toMatch(/error=invalid_request/);
    // A reuse revokes what the first use issued, and a reused refresh token its whole family.
    expect(detail['code-single-use']).toMatch(/^second use refused: HTTP 400 invalid_grant; the tokens of the first use were revoked \(/);
    expect(detail['refresh-rotation']).toBe('rotated; reuse refused (HTTP 400 invalid_grant); the reuse also revoked the newest refresh token');
    expect(detail['redirect-uri-exact']).toMatch(
      /^no redirect for changed path, added path segment, added query parameter, fragment, trailing slash, changed case in the path, percent-encoded separators, other host, user-info in the authority, other scheme; not applied: other port/,
    );
    expect(detail['open-redirector']).toMatch(/^an error page \(HTTP 400\), no redirect to/);
    expect(detail.framing).toMatch(/\/interaction\/[\w-]+: neither X-Frame-Options DENY\/SAMEORIGIN nor CSP frame-ancestors/);
    expect(detail.metadata).toBe(`${op.issuer}/.well-known/oauth-authorization-server: issuer ${op.issuer}, required fields present, S256 listed, endpoints https or loopback`);
    expect(code).toBe(0);
  });

  it('confidential client: what the server really does', async () => {
    const { code, status, detail } = await audit('--client-id', 'web-app', '--client-secret', SECRET, '--second-client-id', 'native-cli');
    expect(status).toEqual({
      flow: 'pass',
      state: 'pass',
      iss: 'pass',
      'code-single-use': 'pass',
      'code-redirect-binding': 'warn',
      'code-client-binding': 'pass',
      'pkce-required': 'skip',
      'pkce-wrong-verifier': 'pass',
      'pkce-downgrade': 'pass',
      'pkce-plain': 'pass',
      'redirect-uri-exact': 'pass',
      'open-redirector': 'pass',
      // 401 with a WWW-Authenticate: Basic header, as RFC 6749 section 5.2 asks after Basic authentication.
      'client-secret-wrong': 'pass',
      'implicit-refused': 'pass',
      // A confidential client's refresh token does not rotate by default: allowed by RFC 9700 §4.14.2.
      'refresh-rotation': 'pass',
      'id-token': 'pass',
      // GET refused, and client_secret in the query string is not taken as client authentication.
      'token-post-only': 'pass',
      'repeated-params': 'pass',
      'unknown-params': 'pass',
      framing: 'warn',
      metadata: 'pass',
      jwks: 'pass',
      // Without its secret the confidential client is refused (invalid_client); it is not registered for the device flow.
      'client-credentials-public': 'pass',
      'device-code-single-use': 'skip',
      'device-slow-down': 'skip',
      'device-unknown-user-code': 'skip',
      // RP-initiated logout is on: an unregistered post-logout URI gets its error page, prompt=none
      // login_required, max_age=0 a new sign-in; its prompt=none gives the audit's client no silent
      // code even without a hint, so the id_token_hint probe has nothing to compare with.
      'post-logout-redirect-exact': 'pass',
      'prompt-none-login-required': 'pass',
      'max-age-reauth': 'pass',
      'id-token-hint-other-user': 'skip',
      'https-endpoints': 'pass',
      tls: 'skip',
      'token-no-store': 'pass',
      'error-format': 'pass',
      // oidc-provider lists no token exchange grant.
      'token-exchange-type': 'skip',
      // PAR and DPoP are on by default; no JWT client authentication, no request objects.
      'par-required': 'skip',
      'par-single-use': 'pass',
      'par-client-binding': 'pass',
      'par-expiry': 'skip',
      'dpop-replay': 'pass',
      'dpop-htm-htu': 'pass',
      'dpop-bound-as-bearer': 'pass',
      'client-assertion-replay': 'skip',
      'client-assertion-audience': 'skip',
      'client-assertion-expired': 'skip',
      'jar-unsigned': 'skip',
    });
    expect(detail['client-secret-wrong']).toMatch(/^HTTP 401 invalid_client \(client_secret_basic\), WWW-Authenticate: Basic/);
    expect(detail['refresh-rotation']).toMatch(/^not rotated, which RFC 9700 §4.14.2 allows for a confidential client/);
    expect(Object.values(status).filter((s) => s === 'fail')).toEqual([]);
    expect(code).toBe(0);
  });
});
