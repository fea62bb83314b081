import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT } from '../helpers/chromium.js';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport, ProbeStatus } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { PROBES, RUN_FIRST } from '../../src/audit/probes/index.js';
import { startWeakServer, type WeakServer, type Weaknesses } from './helpers/weak-server.js';

let server: WeakServer | undefined;
/** The probes that run first (RUN_FIRST); the others are tested by category in test/audit/depth/. */
const RUN_FIRST_ONLY = [
  '--skip',
  PROBES.filter((p) => !RUN_FIRST.includes(p.id))
    .map((p) => p.id)
    .join(','),
];

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PUBLIC = ['--client-id', 'pub', '--pkce'];

/** The PAR, DPoP, JWT and request object probes skip here: this server advertises no PAR, DPoP or request objects (their weakened servers are in secured-weak.test.ts). */
// The session probes skip too: this server announces no end_session_endpoint (their weakened servers are in sessions.test.ts).
const SECOND_ROUND_UNADVERTISED = (p: { id: string; status: ProbeStatus }) =>
  p.status === 'skip' && /^(par|dpop|client-assertion|jar|token-exchange)-|^(post-logout-redirect-exact|prompt-none-login-required|max-age-reauth|id-token-hint-other-user)$/.test(p.id);
const CONFIDENTIAL = ['--client-id', 'conf', '--client-secret', 'conf-secret'];

const SCOPE = ['--scope', 'photo openid'];

async function audit(weak: Weaknesses, client: string[], ...extra: string[]): Promise<{ code: number; report: AuditReport; byId: Record<string, { status: ProbeStatus; detail: string }> }> {
  server = await startWeakServer(weak);
  const io = memoryIO();
  const code = await run(
    [
      'audit',
      '--auth-url',
      server.url,
      ...client,
      ...(extra.includes('--scope') ? [] : SCOPE),
      '--redirect-uri',
      'http://127.0.0.1/callback',
      '--username',
      'u',
      '--password',
      'p',
      '--json',
      ...RUN_FIRST_ONLY,
      ...extra,
    ],
    io,
  );
  const report = JSON.parse(io.out()) as AuditReport;
  const byId = Object.fromEntries(report.probes.map((p) => [p.id, { status: p.status, detail: p.detail }]));
  return { code, report, byId };
}

describe('audit against a correct server', () => {
  // Two whole audits (a public and a confidential client): with the browser tests beside it on a loaded machine, more than the default 20 s.
  it(
    'passes every probe (the baseline the weakened servers are compared with)',
    async () => {
      const { code, report } = await audit({}, PUBLIC, '--second-client-id', 'other', '--second-client-secret', 'other-secret');
      // The secret probe needs a confidential client; TLS needs https (test/audit/tls.test.ts).
      expect(report.probes.filter((p) => p.status !== 'pass' && !SECOND_ROUND_UNADVERTISED(p)).map((p) => [p.id, p.status])).toEqual([
        ['client-secret-wrong', 'skip'],
        ['tls', 'skip'],
      ]);
      expect(code).toBe(0);
      await server?.close();
      const confidential = await audit({}, CONFIDENTIAL);
      expect(confidential.report.probes.filter((p) => p.status !== 'pass' && !SECOND_ROUND_UNADVERTISED(p)).map((p) => [p.id, p.status])).toEqual([
        ['code-client-binding', 'skip'],
        ['pkce-required', 'skip'],
        ['tls', 'skip'],
      ]);
    },
    BROWSER_TEST_TIMEOUT,
  );
});

/** Each probe, a server weakened in exactly what it checks, and the status it must then report. */
const CASES: { probe: string; weak: Weaknesses; client?: string[]; expected: ProbeStatus; detail: RegExp; extra?: string[] }[] = [
  { probe: 'flow', weak: { brokenToken: true }, expected: 'fail', detail: /token request got HTTP 400 server_error/ },
  { probe: 'state', weak: { mangleState: true }, expected: 'fail', detail: /sent ".*", got back/ },
  { probe: 'iss', weak: { noIss: true }, expected: 'fail', detail: /authorization_response_iss_parameter_supported, but the redirect has no iss/ },
  { probe: 'iss', weak: { wrongIss: true }, expected: 'fail', detail: /iss="https:\/\/other.example" is not the issuer/ },
  { probe: 'code-single-use', weak: { codeReusable: true }, expected: 'fail', detail: /second use of the same code got tokens/ },
  { probe: 'code-redirect-binding', weak: { ignoreRedirectUriAtToken: true }, expected: 'fail', detail: /redeemed with redirect_uri=http:\/\/127.0.0.1\/callback\/other/ },
  {
    probe: 'code-client-binding',
    weak: { ignoreClientAtToken: true },
    extra: ['--second-client-id', 'other', '--second-client-secret', 'other-secret'],
    expected: 'fail',
    detail: /client other redeemed a code issued to pub/,
  },
  { probe: 'pkce-required', weak: { pkceOptional: true }, expected: 'fail', detail: /public client got tokens without PKCE/ },
  { probe: 'pkce-wrong-verifier', weak: { ignoreVerifier: true }, expected: 'fail', detail: /does not match the code_challenge/ },
  { probe: 'pkce-downgrade', weak: { allowDowngrade: true }, expected: 'fail', detail: /without code_verifier/ },
  { probe: 'pkce-plain', weak: { allowPlain: true }, expected: 'warn', detail: /code_challenge_method=plain \(metadata lists S256, plain\)/ },
  { probe: 'redirect-uri-exact', weak: { redirectUriMatch: 'prefix' }, expected: 'fail', detail: /changed path .* got a redirect with a code; added path segment/ },
  { probe: 'redirect-uri-exact', weak: { redirectUriMatch: 'any' }, expected: 'fail', detail: /other host \(http:\/\/oauthctl-audit.invalid\/callback\) got a redirect.*other scheme/ },
  { probe: 'client-secret-wrong', weak: { acceptWrongSecret: true }, client: CONFIDENTIAL, expected: 'fail', detail: /tokens issued with a wrong client secret/ },
  { probe: 'client-secret-wrong', weak: { wrongSecretStatus: 400 }, client: CONFIDENTIAL, expected: 'fail', detail: /must be HTTP 401 when the client authenticated with Basic/ },
  { probe: 'error-format', weak: { textErrors: true }, expected: 'fail', detail: /Content-Type is "text\/plain", not application\/json/ },
  { probe: 'implicit-refused', weak: { implicit: true }, expected: 'warn', detail: /issued an access token in the fragment/ },
  { probe: 'token-no-store', weak: { noStore: true }, expected: 'fail', detail: /lack no-store \(Cache-Control: absent\)/ },
  { probe: 'refresh-rotation', weak: { noRotation: true }, expected: 'fail', detail: /public client is neither rotated nor sender-constrained/ },
  { probe: 'refresh-rotation', weak: { noRotation: true }, client: CONFIDENTIAL, expected: 'pass', detail: /^not rotated, which RFC 9700 §4.14.2 allows for a confidential client/ },
  { probe: 'refresh-rotation', weak: { refreshReuse: true }, expected: 'warn', detail: /old refresh token still works/ },
  { probe: 'refresh-rotation', weak: { familySurvives: true }, expected: 'warn', detail: /reuse refused \(HTTP 400 invalid_grant\), but the newest refresh token still works after the reuse/ },
  { probe: 'refresh-rotation', weak: { noRefreshTokens: true }, expected: 'skip', detail: /no refresh token issued/ },
  {
    probe: 'redirect-uri-exact',
    weak: { redirectUriMatch: 'ignore-query' },
    expected: 'fail',
    detail: /^added query parameter \(http:\/\/127.0.0.1\/callback\?next=https%3A%2F%2Fevil.example\) got a redirect with a code; not applied: other port/,
  },
  {
    probe: 'redirect-uri-exact',
    weak: { redirectUriMatch: 'registered-instead' },
    expected: 'pass',
    detail:
      /^no redirect for changed path, .*added query parameter \(sent to the registered URI\), fragment \(sent to the registered URI\), .*user-info in the authority \(sent to the registered URI\)/,
  },
  {
    probe: 'open-redirector',
    weak: { errorRedirectUnregistered: true },
    expected: 'fail',
    detail: /^redirected with error=unsupported_response_type to the unregistered https:\/\/oauthctl-audit.invalid\/open-redirect$/,
  },
  {
    probe: 'client-secret-wrong',
    weak: { bearerChallenge: true },
    client: CONFIDENTIAL,
    expected: 'warn',
    detail: /WWW-Authenticate: Bearer realm="weak" names another scheme than the Basic the client used/,
  },
  {
    probe: 'code-single-use',
    weak: { keepTokensOnCodeReuse: true },
    extra: ['--scope', 'photo offline_access'],
    expected: 'warn',
    detail: /^second use refused: HTTP 400 invalid_grant; but the tokens of the first use stay valid after the reuse \(the refresh token still works/,
  },
  { probe: 'code-single-use', weak: { wrongGrantErrorCode: true }, expected: 'warn', detail: /^second use refused, but with HTTP 400 invalid_request instead of invalid_grant/ },
  { probe: 'code-redirect-binding', weak: { wrongGrantErrorCode: true }, expected: 'warn', detail: /^other redirect_uri refused, but with HTTP 400 invalid_request instead of invalid_grant/ },
  {
    probe: 'code-client-binding',
    weak: { wrongGrantErrorCode: true },
    extra: ['--second-client-id', 'other', '--second-client-secret', 'other-secret'],
    expected: 'warn',
    detail: /redeemed by client other refused, but with HTTP 400 invalid_request instead of invalid_grant/,
  },
  { probe: 'pkce-wrong-verifier', weak: { wrongGrantErrorCode: true }, expected: 'warn', detail: /^wrong code_verifier refused, but with HTTP 400 invalid_request instead of invalid_grant/ },
  { probe: 'framing', weak: { framable: true }, expected: 'warn', detail: /\/authorize: neither X-Frame-Options DENY\/SAMEORIGIN nor CSP frame-ancestors/ },
  { probe: 'metadata', weak: { metadataIssuer: 'https://other.example' }, expected: 'fail', detail: /issuer "https:\/\/other.example" is not "http:\/\/127.0.0.1:\d+", the one asked for/ },
  { probe: 'metadata', weak: { metadataNoS256: true }, expected: 'fail', detail: /code_challenge_methods_supported lists plain, not S256/ },
  {
    probe: 'metadata',
    weak: { metadataRedirect: true },
    expected: 'warn',
    detail: /oauth-authorization-server answered HTTP 302 \(Location: https:\/\/metadata.example\/oauth-authorization-server\)/,
  },
  { probe: 'jwks', weak: { jwksPrivate: true }, expected: 'fail', detail: /^key "weak-1" publishes private key material \(d, p, q, dp, dq, qi\)$/ },
  { probe: 'jwks', weak: { jwksShortRsa: true }, expected: 'fail', detail: /^key "weak-short" is RSA with 1024 bits, fewer than 2048/ },
  { probe: 'jwks', weak: { jwksNoKid: true }, expected: 'warn', detail: /^key #1 has no kid$/ },
  { probe: 'id-token', weak: { idTokenAlgNone: true }, expected: 'fail', detail: /^the id_token is unsigned \(alg none\)$/ },
  { probe: 'id-token', weak: { idTokenHs256: true }, client: CONFIDENTIAL, expected: 'pass', detail: /^HS256 signature valid; iss, aud, exp, iat, nonce, at_hash right$/ },
  { probe: 'id-token', weak: { idTokenBadAtHash: true }, expected: 'fail', detail: /^at_hash "[\w-]+" does not match the access token$/ },
  { probe: 'token-post-only', weak: { tokenAcceptsGet: true }, expected: 'fail', detail: /^a GET with the grant in the query string got tokens$/ },
  {
    probe: 'token-post-only',
    weak: { secretInQuery: true },
    client: CONFIDENTIAL,
    expected: 'fail',
    detail: /^GET refused \(HTTP 405 invalid_request\), but a POST with client_secret in the query string got tokens$/,
  },
  { probe: 'repeated-params', weak: { acceptRepeated: true }, expected: 'fail', detail: /issued a code for a request with state twice/ },
  { probe: 'unknown-params', weak: { rejectUnknownParams: true }, expected: 'fail', detail: /oauthctl_audit_unknown was refused: error=invalid_request/ },
  { probe: 'client-credentials-public', weak: { clientCredentialsForPublic: true }, expected: 'fail', detail: /access token was issued to pub with no client authentication/ },
  { probe: 'device-code-single-use', weak: { deviceCodeReusable: true }, expected: 'fail', detail: /same device code got tokens a second time/ },
  { probe: 'device-slow-down', weak: { noSlowDown: true }, expected: 'warn', detail: /authorization_pending, then HTTP 400 authorization_pending: no slow_down/ },
  {
    probe: 'device-unknown-user-code',
    weak: { acceptUnknownUserCode: true },
    expected: 'fail',
    detail: /went on with the forged code [A-Z]{8}: it ended at http:\/\/127\.0\.0\.1:\d+\/device\?user_code=[A-Z]{8} \(HTTP 200\)/,
  },
];

/** The probes whose verdict depends on how the authorization requests are walked (pages, redirects, fragments). */
const NAVIGATION_PROBES = new Set(['flow', 'state', 'iss', 'pkce-required', 'pkce-plain', 'redirect-uri-exact', 'open-redirector', 'implicit-refused', 'repeated-params', 'unknown-params']);

function weaknessCases(cases: typeof CASES, base: Weaknesses, ...driver: string[]): void {
  for (const c of cases) {
    it(
      `${c.probe}: ${Object.keys(c.weak).join(', ')} -> ${c.expected}`,
      async () => {
        const { code, byId } = await audit({ ...base, ...c.weak }, c.client ?? PUBLIC, '--probe', c.probe === 'token-no-store' ? 'flow,token-no-store' : c.probe, ...(c.extra ?? []), ...driver);
        expect(byId[c.probe]?.status).toBe(c.expected);
        expect(byId[c.probe]?.detail).toMatch(c.detail);
        expect(code).toBe(c.expected === 'fail' ? 1 : 0);
      },
      BROWSER_TEST_TIMEOUT,
    );
  }
}

// The same verdicts when the authorization requests go through a real browser: the browser navigator
// must report what the built-in agent reports (redirects, fragments, error pages) and send nothing to
// the redirect URI or other hosts.
describe.skipIf(!existsSync('/usr/bin/chromium'))('audit --browser-driver chromium: the same verdicts through a real browser', () => {
  it(
    'passes every probe against a correct server',
    async () => {
      const { code, report } = await audit({}, PUBLIC, '--second-client-id', 'other', '--second-client-secret', 'other-secret', '--browser-driver', 'chromium');
      expect(report.probes.filter((p) => p.status !== 'pass' && !SECOND_ROUND_UNADVERTISED(p)).map((p) => p.id)).toEqual(['client-secret-wrong', 'tls']);
      expect(code).toBe(0);
    },
    BROWSER_TEST_TIMEOUT,
  );
  // autoLogin: after a login form POST, Chromium follows the server's redirects itself, unseen by the
  // navigator, and a fragment in the last one is lost (a known limit of --browser-driver).
  weaknessCases(
    CASES.filter((c) => NAVIGATION_PROBES.has(c.probe)),
    { autoLogin: true },
    '--browser-driver',
    'chromium',
  );
});

describe('audit against weakened servers: every probe catches its weakness', () => {
  weaknessCases(CASES, {});

  it('without --issuer, looks for the metadata where the issuer would be, never under the authorization endpoint', async () => {
    server = await startWeakServer({ endpointPath: '/oauth2/v1' });
    const io = memoryIO();
    const endpoints = ['--authorization-endpoint', `${server.url}/oauth2/v1/authorize`, '--token-endpoint', `${server.url}/oauth2/v1/token`];
    const code = await run(['audit', ...endpoints, ...PUBLIC, ...SCOPE, '--redirect-uri', 'http://127.0.0.1/callback', '--username', 'u', '--password', 'p', '--only', 'flow,metadata', '--json'], io);
    const report = JSON.parse(io.out()) as AuditReport;
    expect(report.probes.map((p) => [p.id, p.status])).toEqual([
      ['flow', 'pass'],
      ['metadata', 'pass'],
    ]);
    expect(report.probes[1]?.detail).toBe(`${server.url}/.well-known/oauth-authorization-server: issuer ${server.url}, required fields present, S256 listed, endpoints https or loopback`);
    expect(server.requests.filter((r) => r.includes('.well-known'))).toEqual(['/.well-known/oauth-authorization-server']);
    expect(code).toBe(0);
  });

  it('skips the probes that need a working flow when the flow fails', async () => {
    const { report } = await audit({ brokenToken: true }, PUBLIC);
    const byStatus = (s: ProbeStatus) => report.probes.filter((p) => p.status === s).map((p) => p.id);
    expect(byStatus('fail')).toEqual(['flow']);
    // The verification page does not need the token endpoint: the unknown-code probe still runs.
    expect(byStatus('pass')).toEqual(['framing', 'metadata', 'jwks', 'device-unknown-user-code', 'https-endpoints', 'error-format']);
    expect(report.probes.find((p) => p.id === 'state')?.detail).toBe('needs a working flow (the flow probe failed)');
  });
});
