import { describe, expect, it } from 'vitest';
import { toJUnitXml } from '../../src/audit/junit.js';
import { escapeHtml, escapeXml } from '../../src/output/markup.js';
import { formatAuditTable } from '../../src/audit/table.js';
import { runAudit, summarize } from '../../src/audit/runner.js';
import { httpsEndpointsProbe } from '../../src/audit/probes/tls/https-endpoints.js';
import { redirectUriVariants } from '../../src/audit/probes/authorization-endpoint/redirect-uri-exact.js';
import { errorResponseProblem } from '../../src/audit/probes/token-endpoint/error-format.js';
import { judgeJwks, rsaModulusBits } from '../../src/audit/probes/metadata/jwks.js';
import { metadataProblems } from '../../src/audit/probes/metadata/metadata.js';
import { framingProtection } from '../../src/audit/probes/authorization-endpoint/framing.js';
import { toMarkdown } from '../../src/audit/markdown.js';
import { ProbeSkip } from '../../src/audit/probe-errors.js';
import type { AuditProbe, AuditReport } from '../../src/audit/types.js';
import type { AuditContext } from '../../src/audit/context.js';
import { FlowError } from '../../src/errors.js';

const META = { category: 'authorization-endpoint', threat: 'RFC 9700 §4.7', remedy: 'fix it' } as const;

const report: AuditReport = {
  probes: [
    { id: 'flow', title: 'flow completes', status: 'pass', rfc: 'RFC 6749 §4.1', detail: 'ok', ...META },
    { id: 'state', title: 'state', status: 'fail', rfc: 'RFC 6749 §4.1.2', detail: 'sent "a<b&c", got back "a"', ...META },
    { id: 'iss', title: 'iss', status: 'warn', rfc: 'RFC 9207 §2', detail: 'no iss', ...META },
    { id: 'x', title: 'x', status: 'skip', rfc: 'RFC 1', detail: 'only one client\u0000', ...META },
  ],
  summary: { pass: 1, fail: 1, warn: 1, skip: 1, not_tested: [{ what: 'x', why: 'only one client\u0000' }], about: { resource: 0, authorization_server: 4 } },
};

describe('JUnit XML', () => {
  it('has a testcase per probe: failure for fail, skipped for skip, a warning in system-out', () => {
    const xml = toJUnitXml(report, 'suite <1>', new Date('2030-01-02T03:04:05.678Z'));
    expect(xml).toContain('<testsuites name="oauthctl audit" tests="4" failures="1" skipped="1" errors="0">');
    expect(xml).toContain('<testsuite name="suite &#60;1&#62;" tests="4" failures="1" skipped="1" errors="0" timestamp="2030-01-02T03:04:05">');
    expect(xml).toContain('<failure message="sent &#34;a&#60;b&#38;c&#34;, got back &#34;a&#34;" type="RFC 6749 §4.1.2">');
    expect(xml).toContain('<skipped message="only one client"/>');
    expect(xml).toContain('<system-out>WARNING: no iss</system-out>');
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml.match(/<\/testcase>/g)).toHaveLength(4);
  });

  it('escapes XML specials and drops characters XML cannot carry', () => {
    expect(escapeXml(`<&>"'\u0001\u0007ok\u00e9`)).toBe('&#60;&#38;&#62;&#34;&#39;oké');
  });

  it('the one escaper leaves no markup character and reads back as the text it was given', () => {
    const hostile = ['"><script>alert(1)</script>', "' onmouseover='x", '&amp;already', ']]><!--', 'caf\u00e9 \u{1f600}'];
    const decode = (s: string) => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)));
    for (const text of hostile) {
      expect(escapeHtml(text)).not.toMatch(/[<>"']|&(?!#\d+;)/);
      expect(decode(escapeHtml(text))).toBe(text);
      expect(escapeXml(text)).toBe(escapeHtml(text));
    }
  });
});

describe('Markdown', () => {
  it('one row per probe, with remote text escaped so that it renders as text', () => {
    const hostile: AuditReport = {
      probes: [{ id: 'state', title: 't', status: 'fail', rfc: 'RFC 6749 §4.1.2', detail: 'sent "a|b", got <script>x</script> `c` \u001b[31m*bold*', ...META }],
      summary: { pass: 0, fail: 1, warn: 0, skip: 0, not_tested: [], about: { resource: 0, authorization_server: 1 } },
    };
    expect(toMarkdown(hostile, 'audit <x>').split('\n')).toEqual([
      '## audit &lt;x&gt;',
      '',
      '0 passed, 1 failed, 0 warnings, 0 skipped',
      '',
      '| probe | status | RFC | detail |',
      '|---|---|---|---|',
      '| `state` | ❌ fail | RFC 6749 §4.1.2 | sent "a\\|b", got &lt;script&gt;x&lt;/script&gt; \\`c\\`  \\[31m\\*bold\\* |',
      '',
    ]);
  });
});

describe('table', () => {
  it('aligns the columns and ends with the summary; colour only when asked', () => {
    const plain = formatAuditTable(report, false);
    expect(plain.split('\n')[0]).toBe('PROBE  STATUS  RFC              DETAIL');
    expect(plain).toContain('state  FAIL    RFC 6749 §4.1.2  sent "a<b&c", got back "a"');
    // What was not tested follows the summary, its reason escaped like every remote text.
    expect(plain.trimEnd().split('\n').slice(-3)).toEqual(['1 passed, 1 failed, 1 warning, 1 skipped', 'Not tested:', '  x: only one client\\x00']);
    expect(plain).not.toContain('\u001b[');
    expect(formatAuditTable(report, true)).toContain('\u001b[');
  });

  it('shows remote text in a detail escaped, never raw on the terminal', () => {
    const hostile: AuditReport = {
      probes: [{ id: 'iss', title: 'iss', status: 'fail', rfc: 'RFC 9207 §2', detail: 'iss="\u001b]0;pwned\u0007\u001b[2J"', ...META }],
      summary: { pass: 0, fail: 1, warn: 0, skip: 0, not_tested: [], about: { resource: 0, authorization_server: 1 } },
    };
    const plain = formatAuditTable(hostile, false);
    expect(plain).not.toContain('\u001b');
    expect(plain).not.toContain('\u0007');
    expect(plain).toContain('iss="\\x1b]0;pwned\\x07\\x1b[2J"');
  });
});

describe('runner', () => {
  const probe = (id: string, run: AuditProbe['run'], needsFlow = true): AuditProbe => ({ id, title: id, rfc: 'RFC 0', needsFlow, run, ...META });
  const ctx = {} as AuditContext;

  it('turns exceptions into fail or skip, and skips the flow-dependent probes after a failed flow', async () => {
    const seen: string[] = [];
    const result = await runAudit(
      ctx,
      [
        probe(
          'flow',
          async () => {
            throw new FlowError('login failed', 'check the password');
          },
          false,
        ),
        probe('needs-flow', async () => ({ status: 'pass', detail: 'never runs' })),
        probe(
          'standalone',
          async () => {
            throw new ProbeSkip('not here');
          },
          false,
        ),
        probe(
          'crash',
          async () => {
            throw new TypeError('boom');
          },
          false,
        ),
      ],
      { onResult: (r) => seen.push(r.id) },
    );
    expect(result.probes.map((p) => [p.id, p.status, p.detail])).toEqual([
      ['flow', 'fail', 'login failed (check the password)'],
      ['needs-flow', 'skip', 'needs a working flow (the flow probe failed)'],
      ['standalone', 'skip', 'not here'],
      ['crash', 'fail', 'unexpected error: boom'],
    ]);
    expect(seen).toEqual(['flow', 'needs-flow', 'standalone', 'crash']);
    expect(result.summary).toEqual(summarize(result.probes));
    expect(result.summary).toEqual({
      pass: 0,
      fail: 2,
      warn: 0,
      skip: 2,
      not_tested: [
        { what: 'needs-flow', why: 'needs a working flow (the flow probe failed)' },
        { what: 'standalone', why: 'not here' },
      ],
      about: { resource: 0, authorization_server: 4 },
    });
  });
});

describe('probe rules without a server', () => {
  const fakeContext = (authorizationEndpoint: string, tokenEndpoint: string, issuer?: string) => ({ config: { authorizationEndpoint, tokenEndpoint }, issuer }) as unknown as AuditContext;

  it('https-endpoints warns on plain http off loopback and passes https or loopback', async () => {
    expect(await httpsEndpointsProbe.run(fakeContext('http://id.example.com/authorize', 'https://id.example.com/token', 'https://id.example.com'))).toEqual({
      status: 'warn',
      detail: 'plain http: authorization_endpoint http://id.example.com/authorize',
    });
    expect((await httpsEndpointsProbe.run(fakeContext('https://id.example.com/a', 'https://id.example.com/t'))).detail).toBe('all https');
    expect((await httpsEndpointsProbe.run(fakeContext('http://127.0.0.1:9/a', 'http://[::1]:9/t'))).status).toBe('pass');
  });

  it('redirect URI variants: each a way to differ from exact string matching; the port only off loopback (RFC 8252 §7.3)', () => {
    expect(redirectUriVariants('http://127.0.0.1:8765/callback')).toEqual({
      variants: [
        { name: 'changed path', uri: 'http://127.0.0.1:8765/callback-changed' },
        { name: 'added path segment', uri: 'http://127.0.0.1:8765/callback/extra' },
        { name: 'added query parameter', uri: 'http://127.0.0.1:8765/callback?next=https%3A%2F%2Fevil.example' },
        { name: 'fragment', uri: 'http://127.0.0.1:8765/callback#oauthctl-audit' },
        { name: 'trailing slash', uri: 'http://127.0.0.1:8765/callback/' },
        { name: 'changed case in the path', uri: 'http://127.0.0.1:8765/Callback' },
        { name: 'percent-encoded separators', uri: 'http://127.0.0.1:8765/callback%2F..%2Fother%3Fx' },
        { name: 'other host', uri: 'http://oauthctl-audit.invalid:8765/callback' },
        { name: 'user-info in the authority', uri: 'http://evil.example@127.0.0.1:8765/callback' },
        { name: 'other scheme', uri: 'https://127.0.0.1:8765/callback' },
      ],
      notApplied: ['other port (a loopback redirect URI may use any port, RFC 8252 §7.3)'],
    });
    const web = redirectUriVariants('https://app.example.com/oauth/cb?tenant=1');
    expect(web.notApplied).toEqual([]);
    expect(web.variants.find((v) => v.name === 'other port')?.uri).toBe('https://app.example.com:8443/oauth/cb?tenant=1');
    expect(web.variants.find((v) => v.name === 'added query parameter')?.uri).toBe('https://app.example.com/oauth/cb?tenant=1&next=https%3A%2F%2Fevil.example');
    expect(redirectUriVariants('com.example.app:/oauth').variants.map((v) => v.name)).toEqual([
      'changed path',
      'added path segment',
      'added query parameter',
      'fragment',
      'trailing slash',
      'changed case in the path',
      'percent-encoded separators',
    ]);
  });

  it('JWKS rules: private members and short RSA keys fail; a missing kid and an incoherent use/alg warn', () => {
    const n2048 = Buffer.concat([Buffer.from([0x80]), Buffer.alloc(255, 1)]).toString('base64url');
    const n1024 = Buffer.concat([Buffer.from([0, 0xc0]), Buffer.alloc(127, 1)]).toString('base64url');
    expect(rsaModulusBits(n2048)).toBe(2048);
    expect(rsaModulusBits(n1024)).toBe(1024);
    expect(judgeJwks([{ kty: 'RSA', n: n2048, e: 'AQAB', kid: 'a', use: 'sig', alg: 'RS256' }])).toEqual({ failures: [], warnings: [] });
    expect(judgeJwks([{ kty: 'oct', k: 'c2VjcmV0', kid: 'h', alg: 'HS256' }]).failures).toEqual(['key "h" publishes private key material (k)']);
    expect(judgeJwks([{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', use: 'enc', alg: 'RS256' }]).warnings).toEqual([
      'key #1 has no kid',
      'key #1 is kty EC but alg RS256 needs RSA',
      'key #1 has use enc but the signing alg RS256',
    ]);
  });

  it('metadata rules: issuer, required fields, S256, https endpoints (loopback http allowed)', () => {
    const good = {
      issuer: 'https://id.example',
      authorization_endpoint: 'https://id.example/a',
      token_endpoint: 'https://id.example/t',
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    };
    expect(metadataProblems(good, 'https://id.example', false)).toEqual([]);
    expect(metadataProblems({ ...good, token_endpoint: 'http://id.example/t', code_challenge_methods_supported: undefined, response_types_supported: undefined }, 'https://id.example', true)).toEqual([
      'required fields missing: response_types_supported, jwks_uri, subject_types_supported, id_token_signing_alg_values_supported',
      'no code_challenge_methods_supported: clients cannot tell that PKCE is supported (RFC 9700 §2.1.1)',
      'token_endpoint http://id.example/t is not https',
    ]);
    // Without --issuer the audit assumed the issuer; a trailing slash is all it cannot know.
    expect(metadataProblems({ ...good, issuer: 'https://id.example/' }, 'https://id.example', false, false)).toEqual([]);
    expect(metadataProblems({ ...good, issuer: 'https://id.example/' }, 'https://id.example', false, true)).toHaveLength(1);
  });

  it('framing: X-Frame-Options DENY/SAMEORIGIN or CSP frame-ancestors without a wildcard', () => {
    expect(framingProtection({ 'x-frame-options': 'DENY' })).toBe('X-Frame-Options: DENY');
    expect(framingProtection({ 'content-security-policy': "default-src 'self'; frame-ancestors 'self' https://portal.example" })).toBe("CSP frame-ancestors 'self' https://portal.example");
    expect(framingProtection({ 'content-security-policy': 'frame-ancestors *' })).toBeUndefined();
    expect(framingProtection({ 'x-frame-options': 'ALLOW-FROM https://x.example' })).toBeUndefined();
  });

  it('error responses: JSON object with a valid error is fine; other shapes are named', () => {
    const x = (status: number, type: string, body: string) => {
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      return { grantType: 'g', status, headers: { 'content-type': type }, body, json };
    };
    expect(errorResponseProblem(x(400, 'application/json; charset=utf-8', '{"error":"invalid_grant","error_description":"code expired"}'))).toBeUndefined();
    expect(errorResponseProblem(x(400, 'text/html', '<h1>no</h1>'))).toEqual({ severity: 'major', text: 'Content-Type is "text/html", not application/json' });
    expect(errorResponseProblem(x(400, 'application/json', '{"message":"no"}'))?.text).toBe('no "error" string member');
    expect(errorResponseProblem(x(500, 'application/json', '{"error":"server_error"}'))?.severity).toBe('major');
    expect(errorResponseProblem(x(400, 'application/json', '{"error":"invalid_grant","error_description":"code \\"x\\" expired"}'))).toEqual({
      severity: 'minor',
      text: 'error_description contains "\\"", which section 5.2 does not allow',
    });
    expect(errorResponseProblem(x(403, 'application/json', '{"error":"invalid_grant"}'))?.severity).toBe('minor');
  });
});
