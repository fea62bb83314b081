import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT } from '../helpers/chromium.js';
import { spawn } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/program/main.js';
import { createMockServer, loadMockConfig, type MockConfigInput, type MockServer } from '../../src/mock/index.js';
import type { AuditReport } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { PROBES, RUN_FIRST } from '../../src/audit/probes/index.js';
import { makeSelfSigned } from '../helpers/certificates.js';

let mock: MockServer;
let dir: string;
beforeAll(async () => {
  // A 1 s polling interval keeps the device probes (which honour it) quick.
  mock = await createMockServer({ device_interval: 1 });
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-audit-'));
});
afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

const ACCOUNT = ['--username', 'alice', '--password', 'wonderland'];

/** The probes that run first (RUN_FIRST); the others are tested by category in test/audit/depth/. */
const RUN_FIRST_ONLY = [
  '--skip',
  PROBES.filter((p) => !RUN_FIRST.includes(p.id))
    .map((p) => p.id)
    .join(','),
];

async function audit(server: MockServer, ...args: string[]) {
  const io = memoryIO();
  const code = await run(['audit', '--auth-url', server.authUrl, '--scope', 'photo', ...ACCOUNT, ...RUN_FIRST_ONLY, ...args], io);
  return { code, io };
}

/** The probes of PAR, DPoP, JWT client authentication, JAR): skipped where the server does not advertise the feature. */
const SECOND_ROUND = new Set([
  'par-required',
  'par-single-use',
  'par-client-binding',
  'par-expiry',
  'dpop-replay',
  'dpop-htm-htu',
  'dpop-bound-as-bearer',
  'client-assertion-replay',
  'client-assertion-audience',
  'client-assertion-expired',
  'jar-unsigned',
  'token-exchange-type',
]);
const passOrUnadvertised = ([id, status]: [string, string]) => status === 'pass' || (SECOND_ROUND.has(id) && status === 'skip');

function statuses(report: AuditReport): Record<string, string> {
  return Object.fromEntries(report.probes.map((p) => [p.id, p.status]));
}

describe('audit against the built-in mock', () => {
  it('public PKCE client: every probe passes, no warning; the secret probe is skipped for a public client, TLS on http', async () => {
    const { code, io } = await audit(
      mock,
      '--client-id',
      'photo-cli',
      '--pkce',
      '--scope',
      'openid offline_access',
      '--second-client-id',
      'photo-web',
      '--second-client-secret',
      'photo-web-secret',
      '--json',
    );
    const report = JSON.parse(io.out()) as AuditReport;
    const s = statuses(report);
    // Every error_description of the mock keeps to RFC 6749 section 5.2's characters: error-format passes too.
    const { 'client-secret-wrong': secret, tls, ...rest } = s;
    expect([secret, tls]).toEqual(['skip', 'skip']);
    expect(Object.entries(rest).filter((e) => !passOrUnadvertised(e))).toEqual([]);
    expect(Object.keys(s)).toHaveLength(46);
    const detail = Object.fromEntries(report.probes.map((p) => [p.id, p.detail]));
    // With openid granted, the mock's userinfo refuses the DPoP-bound token for its binding only.
    expect(s['dpop-bound-as-bearer']).toBe('pass');
    expect(detail['dpop-bound-as-bearer']).toMatch(/\/userinfo: HTTP 401 as Bearer; HTTP 200 with Authorization: DPoP and a proof$/);
    // The mock revokes what a reused code issued, and a reused refresh token's whole family.
    expect(detail['code-single-use']).toBe('second use refused: HTTP 400 invalid_grant; the tokens of the first use were revoked (the refresh token is refused)');
    expect(detail['refresh-rotation']).toBe('rotated; reuse refused (HTTP 400 invalid_grant); the reuse also revoked the newest refresh token');
    expect(detail.tls).toBe('the authorization endpoint is http, not https');
    expect(code).toBe(0);
  });

  it('confidential client: every probe passes, no warning; pkce-required is skipped for a confidential client', async () => {
    const junit = join(dir, 'reports', 'audit.xml');
    const { code, io } = await audit(mock, '--client-id', 'photo-web', '--client-secret', 'photo-web-secret', '--scope', 'openid', '--second-client-id', 'photo-cli', '--junit', junit);
    expect(code).toBe(0);
    expect(io.out()).toMatch(/^PROBE +STATUS +RFC +DETAIL\n/);
    expect(io.out()).toMatch(/client-secret-wrong +PASS +RFC 6749 §5\.2 +HTTP 401 invalid_client \(client_secret_basic\), WWW-Authenticate: Basic/);
    // Introspection shows the access token of a reused code's first use inactive.
    expect(io.out()).toMatch(/code-single-use +PASS .*the tokens of the first use were revoked \(introspection says active=false\)/);
    expect(io.out()).toMatch(/token-post-only +PASS .*GET refused \(HTTP 405 invalid_request\); client_secret in the query string refused \(HTTP 400 invalid_request\)/);
    expect(io.out()).toMatch(/pkce-required +SKIP /);
    expect(io.out()).toMatch(/error-format +PASS /);
    expect(io.out()).toMatch(/\n\d+ passed, 0 failed, 0 warnings, \d+ skipped\nNot tested:\n/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="oauthctl audit http://127.0.0.1:');
    expect(xml.match(/<testcase /g)).toHaveLength(46);
    expect(xml).toContain('<skipped message="photo-web is a confidential client');
    expect(statSync(junit).mode & 0o777).toBe(0o644);
  });

  it('a weakened mock configuration (no PKCE required, plain allowed) fails pkce-required and warns on pkce-plain', async () => {
    const weak = await createMockServer(await loadMockConfig('fixtures/audit/weak-pkce.json'));
    try {
      const { code, io } = await audit(weak, '--client-id', 'weak-cli', '--pkce', '--probe', 'flow,pkce-required,pkce-plain', '--json');
      const report = JSON.parse(io.out()) as AuditReport;
      expect(statuses(report)).toEqual({ flow: 'pass', 'pkce-required': 'fail', 'pkce-plain': 'warn' });
      expect(report.summary).toEqual({ pass: 1, fail: 1, warn: 1, skip: 0, not_tested: [], about: { resource: 0, authorization_server: 3 } });
      expect(code).toBe(1);
    } finally {
      await weak.close();
    }
  });
});

describe('dpop-bound-as-bearer presents the token only where the binding alone can refuse it', () => {
  it('scope photo, no --api-url: skipped, saying what to give (userinfo would refuse the token for lacking openid)', async () => {
    const { code, io } = await audit(mock, '--client-id', 'photo-cli', '--only', 'flow,dpop-bound-as-bearer', '--json');
    const report = JSON.parse(io.out()) as AuditReport;
    expect(report.probes[1]).toMatchObject({
      status: 'skip',
      detail:
        'needs a resource where only the binding can refuse the token: no --api-url, and no openid in the scope; give --api-url URL of a resource that accepts these tokens, or --scope openid for the userinfo endpoint',
    });
    expect(code).toBe(0);
  });

  it('--api-url of the photo API (scope photo): refused as Bearer, accepted with its proof', async () => {
    const { code, io } = await audit(mock, '--client-id', 'photo-cli', '--api-url', `${mock.baseUrl}/photos`, '--only', 'dpop-bound-as-bearer', '--json');
    const [probe] = (JSON.parse(io.out()) as AuditReport).probes;
    expect(probe).toMatchObject({ status: 'pass', detail: `${mock.baseUrl}/photos: HTTP 401 as Bearer; HTTP 200 with Authorization: DPoP and a proof` });
    expect(code).toBe(0);
  });
});

describe('audit against the mock of fixtures/mock/modern.jsonc (JWT client authentication, PAR required)', () => {
  let modern: MockServer;
  beforeAll(async () => {
    modern = await createMockServer(await loadMockConfig('fixtures/mock/modern.jsonc'));
    // A public client beside them, for the binding probes and pkce-required.
    modern.addClient({ client_id: 'photo-pub', redirect_uris: ['http://127.0.0.1/callback'] });
  });
  afterAll(async () => {
    await modern.close();
  });

  it('private_key_jwt (photo-jwt): no probe fails; the hand-made token requests carry a fresh client assertion', async () => {
    const { code, io } = await audit(
      modern,
      '--client-id',
      'photo-jwt',
      '--auth-method',
      'private_key_jwt',
      '--signing-key',
      'fixtures/mock/photo-jwt.key.pem',
      '--scope',
      'openid photo',
      '--second-client-id',
      'photo-pub',
      '--json',
    );
    const report = JSON.parse(io.out()) as AuditReport;
    const detail = Object.fromEntries(report.probes.map((p) => [p.id, p.detail]));
    expect(report.probes.filter((p) => p.status === 'fail' || p.status === 'warn')).toEqual([]);
    expect(statuses(report)).toMatchObject({
      'token-post-only': 'pass',
      'repeated-params': 'pass',
      'client-assertion-replay': 'pass',
      'client-assertion-audience': 'pass',
      'client-assertion-expired': 'pass',
      'client-secret-wrong': 'skip',
    });
    expect(detail['token-post-only']).toBe('GET refused (HTTP 405 invalid_request); client_assertion in the query string refused (HTTP 400 invalid_request)');
    expect(detail['repeated-params']).toMatch(/code twice \(real first\): HTTP 400 invalid_request; code twice \(real last\): HTTP 400 invalid_request$/);
    expect(detail['client-secret-wrong']).toBe('photo-jwt authenticates with private_key_jwt, not a client secret');
    // Each token request (the hand-made ones too) carried an assertion of its own.
    const assertions = modern
      .requests()
      .filter((r) => r.path === '/token' && typeof r.form?.client_assertion === 'string')
      .map((r) => r.form?.client_assertion);
    expect(assertions.length).toBeGreaterThan(10);
    expect(new Set(assertions).size).toBe(assertions.length - 1); // client-assertion-replay sends one twice on purpose
    expect(code).toBe(0);
  });

  it('photo-jar with --jar (require_signed_request_object): every request of the client goes as a signed request object; no probe fails', async () => {
    const { code, io } = await audit(
      modern,
      '--client-id',
      'photo-jar',
      '--jar',
      '--signing-key',
      'fixtures/mock/photo-jwt.key.pem',
      '--scope',
      'openid photo',
      '--second-client-id',
      'photo-pub',
      '--json',
    );
    const report = JSON.parse(io.out()) as AuditReport;
    expect(report.probes.filter((p) => p.status === 'fail' || p.status === 'warn')).toEqual([]);
    expect(statuses(report)).toMatchObject({ flow: 'pass', state: 'pass', 'code-single-use': 'pass', 'jar-unsigned': 'pass' });
    // No authorization request of photo-jar reached /authorize without a request object (by value, or pushed by the PAR probes).
    const plain = modern.requests().filter((r) => r.path === '/authorize' && r.query.client_id === 'photo-jar' && r.query.request === undefined && r.query.request_uri === undefined);
    expect(plain).toEqual([]);
    expect(code).toBe(0);
  });

  it('photo-jar without --jar: the flow fails with the reason the server gave', async () => {
    const { code, io } = await audit(modern, '--client-id', 'photo-jar', '--only', 'flow', '--json');
    const [flow] = (JSON.parse(io.out()) as AuditReport).probes;
    expect(flow?.status).toBe('fail');
    expect(flow?.detail).toMatch(/request object/);
    expect(code).toBe(1);
  });

  it('photo-par with --par: every authorization request is pushed, tampered ones too; every probe passes or skips with a reason', async () => {
    const { code, io } = await audit(modern, '--client-id', 'photo-par', '--client-secret', 'photo-par-secret', '--par', '--scope', 'openid photo', '--second-client-id', 'photo-pub', '--json');
    const report = JSON.parse(io.out()) as AuditReport;
    expect(report.probes.filter((p) => p.status === 'fail' || p.status === 'warn')).toEqual([]);
    for (const p of report.probes.filter((r) => r.status === 'skip')) expect(p.detail).not.toBe('');
    const detail = Object.fromEntries(report.probes.map((p) => [p.id, p.detail]));
    expect(statuses(report)).toMatchObject({ flow: 'pass', 'redirect-uri-exact': 'pass', 'par-single-use': 'pass', 'par-client-binding': 'pass', framing: 'pass', 'jar-unsigned': 'pass' });
    // The tampered requests are refused where they go: at the PAR endpoint.
    expect(detail['open-redirector']).toMatch(/^the PAR endpoint answered HTTP 400 invalid_request: redirect_uri .* is not registered/);
    expect(detail['repeated-params']).toMatch(/^\/authorize: the PAR endpoint answered HTTP 400 invalid_request: the state parameter is sent more than once/);
    expect(detail['implicit-refused']).toMatch(/^response_type=token refused: the PAR endpoint answered HTTP 400 unsupported_response_type/);
    expect(detail['jar-unsigned']).toMatch(/the PAR endpoint answered HTTP 400 invalid_request_object/);
    // Nothing reached /authorize but client_id and a request_uri (par-required walks a plain request on purpose, and skips here).
    const plain = modern.requests().filter((r) => r.path === '/authorize' && r.query.client_id === 'photo-par' && r.query.request_uri === undefined);
    expect(plain).toEqual([]);
    expect(code).toBe(0);
  });

  it("photo-par without --par: the flow fails with the server's reason and the rest is skipped", async () => {
    const { code, io } = await audit(modern, '--client-id', 'photo-par', '--client-secret', 'photo-par-secret', '--only', 'flow,state', '--json');
    const [flow, state] = (JSON.parse(io.out()) as AuditReport).probes;
    expect(flow?.detail).toMatch(/^no code: the redirect carries error=invalid_request \(client photo-par must push its authorization requests/);
    expect(state).toMatchObject({ status: 'skip', detail: 'needs a working flow (the flow probe failed)' });
    expect(code).toBe(1);
  });
});

describe('audit of a client that authenticates with its TLS certificate (RFC 8705)', () => {
  it('self_signed_tls_client_auth over HTTPS: every token request of the audit presents the certificate', async () => {
    const at = (name: string) => join(dir, name);
    makeSelfSigned(dir, 'self', { subject: '/CN=photo-self', subjectAltName: null });
    const jwk = createPublicKey(readFileSync(at('self.key'), 'utf8')).export({ format: 'jwk' });
    const client = { client_id: 'photo-self', token_endpoint_auth_method: 'self_signed_tls_client_auth', jwks: { keys: [jwk] }, redirect_uris: ['http://127.0.0.1/callback'] };
    const tls = await createMockServer({ clients: [client] } as MockConfigInput, { tls: true });
    try {
      const mtls = ['--auth-method', 'self_signed_tls_client_auth', '--tls-cert', at('self.pem'), '--tls-key', at('self.key'), '--insecure'];
      const { code, io } = await audit(tls, '--client-id', 'photo-self', ...mtls, '--only', 'flow,code-single-use,token-post-only,repeated-params,client-secret-wrong', '--json');
      const report = JSON.parse(io.out()) as AuditReport;
      expect(statuses(report)).toEqual({ flow: 'pass', 'code-single-use': 'pass', 'client-secret-wrong': 'skip', 'token-post-only': 'pass', 'repeated-params': 'pass' });
      const detail = Object.fromEntries(report.probes.map((p) => [p.id, p.detail]));
      expect(detail['token-post-only']).toBe('GET refused (HTTP 405 invalid_request); credentials in the URL not tried: photo-self authenticates with self_signed_tls_client_auth, no secret');
      expect(code).toBe(0);
    } finally {
      await tls.close();
    }
  });
});

describe('audit of a mock whose metadata requires PAR (require_pushed_authorization_requests)', () => {
  it('pushes without --par; par-required passes; a public client without PKCE and tampered redirect URIs are refused at the PAR endpoint', async () => {
    const strict = await createMockServer({ ...(await loadMockConfig('fixtures/mock/modern.jsonc')), require_pushed_authorization_requests: true });
    try {
      strict.addClient({ client_id: 'photo-pub', redirect_uris: ['http://127.0.0.1/callback'] });
      const { code, io } = await audit(strict, '--client-id', 'photo-pub', '--only', 'flow,state,par-required,pkce-required,redirect-uri-exact,unknown-params,framing,code-single-use', '--json');
      const report = JSON.parse(io.out()) as AuditReport;
      const detail = Object.fromEntries(report.probes.map((p) => [p.id, p.detail]));
      expect(statuses(report)).toEqual({
        flow: 'pass',
        state: 'pass',
        'code-single-use': 'pass',
        'pkce-required': 'pass',
        'redirect-uri-exact': 'pass',
        'unknown-params': 'pass',
        framing: 'pass',
        'par-required': 'pass',
      });
      expect(detail['pkce-required']).toMatch(/^authorization request without code_challenge refused: the PAR endpoint answered HTTP 400 invalid_request/);
      expect(detail['par-required']).toMatch(/^a request that was not pushed was refused: /);
      expect(code).toBe(0);
    } finally {
      await strict.close();
    }
  });
});

describe('audit command line', () => {
  it('--json prints exactly the contract shape', async () => {
    const { io } = await audit(mock, '--client-id', 'photo-cli', '--probe', 'flow', '--probe', 'https-endpoints', '--json');
    const report = JSON.parse(io.out()) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual(['probes', 'summary']);
    const probes = report.probes as Record<string, unknown>[];
    expect(probes.map((p) => Object.keys(p))).toEqual([
      ['id', 'title', 'status', 'rfc', 'detail', 'category', 'threat', 'remedy'],
      ['id', 'title', 'status', 'rfc', 'detail', 'category', 'threat', 'remedy'],
    ]);
    expect(report.summary).toEqual({ pass: 2, fail: 0, warn: 0, skip: 0, not_tested: [], about: { resource: 0, authorization_server: 2 } });
  });

  it('bad input is one line, exit 2', async () => {
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, 'a file, so no directory can be made here');
    const cases: [string[], RegExp][] = [
      [['--client-id', 'photo-cli', '--password', 'x'], /^oauthctl: error: audit needs --username \(give --username or set OAUTHCTL_USERNAME\)\n$/],
      [
        ['--client-id', 'photo-cli', ...ACCOUNT, '--probe', 'nope'],
        /^oauthctl: error: unknown probe or category "nope" \(categories: authorization-endpoint, token-endpoint, .*; `oauthctl audit --list` lists the probes\)\n$/,
      ],
      [['--client-id', 'photo-cli', ...ACCOUNT, '--only', 'flow,nope'], /^oauthctl: error: unknown probe or category "nope" \(categories: /],
      [['--client-id', 'photo-cli', ...ACCOUNT, '--skip', 'tls', '--skip', 'framin'], /^oauthctl: error: unknown probe or category "framin" \(did you mean "framing"\? categories: /],
      [['--client-id', 'photo-cli', ...ACCOUNT, '--api-url', 'ftp://x'], /^oauthctl: error: --api-url "ftp:\/\/x" is not an http\(s\) URL/],
      [['--client-id', 'photo-cli', ...ACCOUNT, '--second-client-secret', 's'], /^oauthctl: error: --second-client-secret needs --second-client-id\n$/],
      [
        ['--client-id', 'photo-cli', '--pkce', '--scope', 'photo', ...ACCOUNT, '--probe', 'flow', '--junit', join(blocker, 'audit.xml')],
        /^oauthctl: error: cannot write --junit ".*\/not-a-dir\/audit.xml": .* \(give a path in a writable directory\)\n$/,
      ],
    ];
    for (const [args, expected] of cases) {
      const io = memoryIO();
      const code = await run(['audit', '--auth-url', mock.authUrl, ...args], io);
      expect(
        io
          .err()
          .split('\n')
          .filter((l) => l.startsWith('oauthctl: error'))
          .join('\n') + '\n',
      ).toMatch(expected);
      expect(code).toBe(2);
    }
  });

  it('--only and --skip choose the probes; --markdown writes the report as a Markdown table', async () => {
    const file = join(dir, 'summary.md');
    const { code, io } = await audit(mock, '--client-id', 'photo-cli', '--only', 'flow,state', '--only', 'metadata', '--skip', 'state', '--markdown', file, '--json');
    expect((JSON.parse(io.out()) as AuditReport).probes.map((p) => p.id)).toEqual(['flow', 'metadata']);
    const md = readFileSync(file, 'utf8').split('\n');
    expect(md[0]).toMatch(/^## oauthctl audit http:\/\/127\.0\.0\.1:\d+ photo-cli$/);
    expect(md.slice(2, 6)).toEqual(['2 passed, 0 failed, 0 warnings, 0 skipped', '', '| probe | status | RFC | detail |', '|---|---|---|---|']);
    expect(md[6]).toMatch(/^\| `flow` \| ✅ pass \| RFC 6749 §4\.1 \| code issued \(PKCE S256\), token response/);
    expect(md[7]).toMatch(/^\| `metadata` \| ✅ pass \| RFC 8414 §3\.3 \| http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server: issuer/);
    expect(code).toBe(0);
  });

  it('never prints the password, not even with --verbose', async () => {
    const { io } = await audit(mock, '--client-id', 'photo-cli', '--probe', 'flow,state', '--verbose');
    expect(io.err()).toContain('headless: login form chosen');
    expect(io.err()).not.toContain('wonderland');
  });
});

describe('the CI recipe: serve-mock in the background, then audit --junit (built CLI)', () => {
  it('runs end to end with node bin/oauthctl.js', async () => {
    // A 1 s device polling interval: the device probes honour it.
    const config = join(dir, 'fast-device.json');
    writeFileSync(config, JSON.stringify({ device_interval: 1 }));
    const server = spawn(process.execPath, ['bin/oauthctl.js', 'serve-mock', '--port', '0', '--json', '--config', config], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
        });
        server.once('exit', (c) => reject(new Error(`serve-mock exited ${c}`)));
      });
      const { auth_url: authUrl } = JSON.parse(line) as { auth_url: string };
      const junit = join(dir, 'ci.xml');
      const audit = spawn(
        process.execPath,
        ['bin/oauthctl.js', 'audit', '--auth-url', authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo offline_access', ...RUN_FIRST_ONLY, '--junit', junit],
        {
          env: { ...process.env, OAUTHCTL_USERNAME: 'alice', OAUTHCTL_PASSWORD: 'wonderland', NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      audit.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const code = await new Promise<number | null>((resolve) => audit.once('exit', resolve));
      expect(stdout).toMatch(/flow +PASS/);
      expect(code).toBe(0);
      expect(readFileSync(junit, 'utf8')).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="oauthctl audit" tests="46" failures="0"/);
    } finally {
      server.kill('SIGTERM');
    }
  });
});

describe.skipIf(!existsSync('/usr/bin/chromium'))('audit --browser-driver chromium against the built-in mock', () => {
  it(
    "logs in on the mock's login and consent pages in Chromium: every probe passes as with the built-in agent",
    async () => {
      const { code, io } = await audit(
        mock,
        '--client-id',
        'photo-cli',
        '--pkce',
        '--second-client-id',
        'photo-web',
        '--second-client-secret',
        'photo-web-secret',
        '--browser-driver',
        'chromium',
        '--json',
      );
      const s = statuses(JSON.parse(io.out()) as AuditReport);
      // Without openid (scope photo) and without --api-url no resource could show the binding: dpop-bound-as-bearer skips.
      const { 'client-secret-wrong': secret, 'id-token': idToken, tls, 'dpop-bound-as-bearer': dpopBound, ...rest } = s;
      expect([secret, idToken, tls, dpopBound]).toEqual(['skip', 'skip', 'skip', 'skip']);
      expect(Object.entries(rest).filter((e) => !passOrUnadvertised(e))).toEqual([]);
      expect(code).toBe(0);
      expect(io.err()).not.toContain('wonderland');
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "--trace holds the browser's requests: the redirect out of the server as the server answered it, never sent on; the password scrubbed",
    async () => {
      const file = join(dir, 'audit-browser.har');
      const { code, io } = await audit(mock, '--client-id', 'photo-cli', '--pkce', '--browser-driver', 'chromium', '--only', 'flow,state,redirect-uri-exact', '--trace', file);
      expect(code, io.err()).toBe(0);
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain('wonderland');
      type Entry = { request: { method: string; url: string }; response: { status: number; headers: { name: string; value: string }[] }; _oauthctl: { actor: string; error?: string } };
      const entries = (JSON.parse(text) as { log: { entries: Entry[] } }).log.entries.filter((e) => e._oauthctl.actor === 'user-agent');
      const paths = entries.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`);
      expect(paths).toEqual(expect.arrayContaining(['GET /authorize', 'GET /assets/mock.css', 'POST /login', 'GET /consent', 'POST /consent']));
      // The consent's answer redirects to the redirect URI: recorded as the server gave it; nothing reached the redirect URI.
      const consent = entries.find((e) => e.request.method === 'POST' && new URL(e.request.url).pathname === '/consent')!;
      expect(consent.response.status).toBe(303);
      expect(consent.response.headers.find((h) => h.name === 'location')?.value).toMatch(/^http:\/\/127\.0\.0\.1\/callback\?code=/);
      expect(entries.filter((e) => new URL(e.request.url).pathname === '/callback' && e._oauthctl.error === undefined)).toEqual([]);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it('a missing browser is one line, exit 2, before any request', async () => {
    const { code, io } = await audit(mock, '--client-id', 'photo-cli', '--browser-driver', 'chromium', '--browser-path', '/nonexistent/chromium');
    expect(code).toBe(2);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toMatch(/--browser-path "\/nonexistent\/chromium" is not an executable file/);
  });
});
