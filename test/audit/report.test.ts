import { describe, expect, it } from 'vitest';
import { toJUnitXml, xmlEscape } from '../../src/audit/junit.js';
import { formatAuditTable } from '../../src/audit/table.js';
import { runAudit, summarize } from '../../src/audit/runner.js';
import { httpsEndpointsProbe } from '../../src/audit/probes/https-endpoints.js';
import { redirectUriVariants } from '../../src/audit/probes/redirect-uri-exact.js';
import { errorResponseProblem } from '../../src/audit/probes/error-format.js';
import { ProbeSkip } from '../../src/audit/probe-errors.js';
import type { AuditReport, Probe } from '../../src/audit/types.js';
import type { AuditContext } from '../../src/audit/context.js';
import { FlowError } from '../../src/errors.js';

const report: AuditReport = {
  probes: [
    { id: 'flow', title: 'flow completes', status: 'pass', rfc: 'RFC 6749 §4.1', detail: 'ok' },
    { id: 'state', title: 'state', status: 'fail', rfc: 'RFC 6749 §4.1.2', detail: 'sent "a<b&c", got back "a"' },
    { id: 'iss', title: 'iss', status: 'warn', rfc: 'RFC 9207 §2', detail: 'no iss' },
    { id: 'x', title: 'x', status: 'skip', rfc: 'RFC 1', detail: 'only one client\u0000' },
  ],
  summary: { pass: 1, fail: 1, warn: 1, skip: 1 },
};

describe('JUnit XML', () => {
  it('has a testcase per probe: failure for fail, skipped for skip, a warning in system-out', () => {
    const xml = toJUnitXml(report, 'suite <1>', new Date('2030-01-02T03:04:05.678Z'));
    expect(xml).toContain('<testsuites name="oauthctl audit" tests="4" failures="1" skipped="1" errors="0">');
    expect(xml).toContain('<testsuite name="suite &lt;1&gt;" tests="4" failures="1" skipped="1" errors="0" timestamp="2030-01-02T03:04:05">');
    expect(xml).toContain('<failure message="sent &quot;a&lt;b&amp;c&quot;, got back &quot;a&quot;" type="RFC 6749 §4.1.2">');
    expect(xml).toContain('<skipped message="only one client"/>');
    expect(xml).toContain('<system-out>WARNING: no iss</system-out>');
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml.match(/<\/testcase>/g)).toHaveLength(4);
  });

  it('escapes XML specials and drops characters XML cannot carry', () => {
    expect(xmlEscape(`<&>"'\u0001\u0007ok\u00e9`)).toBe('&lt;&amp;&gt;&quot;&apos;oké');
  });
});

describe('table', () => {
  it('aligns the columns and ends with the summary; colour only when asked', () => {
    const plain = formatAuditTable(report, false);
    expect(plain.split('\n')[0]).toBe('PROBE  STATUS  RFC              DETAIL');
    expect(plain).toContain('state  FAIL    RFC 6749 §4.1.2  sent "a<b&c", got back "a"');
    expect(plain.trimEnd().split('\n').pop()).toBe('1 passed, 1 failed, 1 warnings, 1 skipped');
    expect(plain).not.toContain('\u001b[');
    expect(formatAuditTable(report, true)).toContain('\u001b[');
  });
});

describe('runner', () => {
  const probe = (id: string, run: Probe['run'], needsFlow = true): Probe => ({ id, title: id, rfc: 'RFC 0', needsFlow, run });
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
    expect(result.summary).toEqual({ pass: 0, fail: 2, warn: 0, skip: 2 });
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

  it('redirect URI variants: changed path, added segment, other host, other scheme', () => {
    expect(redirectUriVariants('http://127.0.0.1:8765/callback')).toEqual([
      { name: 'changed path', uri: 'http://127.0.0.1:8765/callback-changed' },
      { name: 'added path segment', uri: 'http://127.0.0.1:8765/callback/extra' },
      { name: 'other host', uri: 'http://oauthctl-audit.invalid:8765/callback' },
      { name: 'other scheme', uri: 'https://127.0.0.1:8765/callback' },
    ]);
    expect(redirectUriVariants('com.example.app:/oauth')).toEqual([
      { name: 'changed path', uri: 'com.example.app:/oauth-changed' },
      { name: 'added path segment', uri: 'com.example.app:/oauth/extra' },
    ]);
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
