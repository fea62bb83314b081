import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport, ProbeStatus } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { startSecuredWeakServer, type SecuredWeakServer, type SecuredWeaknesses } from './helpers/secured-weak-server.js';

let server: SecuredWeakServer | undefined;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-secured-weak-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PUBLIC = ['--client-id', 'pub', '--pkce', '--second-client-id', 'other', '--second-client-secret', 'other-secret'];
const JWT = ['--client-id', 'jwt', '--pkce', '--auth-method', 'private_key_jwt', '--signing-key', 'KEY'];

async function audit(weak: SecuredWeaknesses, client: string[], probes?: string) {
  server = await startSecuredWeakServer(weak);
  const keyFile = join(dir, 'jwt.pem');
  writeFileSync(keyFile, server.jwtClientKeyPem);
  const io = memoryIO();
  const args = client.map((a) => (a === 'KEY' ? keyFile : a));
  const code = await run(['audit', '--auth-url', server.url, ...args, '--scope', 'openid', '--username', 'u', '--password', 'p', '--json', ...(probes ? ['--probe', probes] : [])], io);
  const report = JSON.parse(io.out()) as AuditReport;
  return { code, byId: Object.fromEntries(report.probes.map((p) => [p.id, { status: p.status, detail: p.detail }])) };
}

const SECURED =
  'flow,par-required,par-single-use,par-client-binding,par-expiry,dpop-replay,dpop-htm-htu,dpop-bound-as-bearer,client-assertion-replay,client-assertion-audience,client-assertion-expired,jar-unsigned';

describe('second-round probes against a correct server (the baseline)', () => {
  it('public client: PAR, DPoP and JAR probes pass; par-required skips (not advertised), par-expiry skips (60 s)', async () => {
    const { code, byId } = await audit({}, PUBLIC, SECURED);
    const status = Object.fromEntries(Object.entries(byId).map(([id, r]) => [id, r.status]));
    expect(status).toEqual({
      flow: 'pass',
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
      'jar-unsigned': 'pass',
    });
    expect(code).toBe(0);
  });

  it('private_key_jwt client: the client-assertion probes pass', async () => {
    const { byId } = await audit({}, JWT, 'flow,client-assertion-replay,client-assertion-audience,client-assertion-expired,par-single-use');
    expect(Object.values(byId).map((r) => r.status)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass']);
  });

  it('--par: the variants of the redirect URI are pushed, and refused', async () => {
    const { code, byId } = await audit({}, [...JWT, '--par'], 'flow,redirect-uri-exact');
    expect(byId['redirect-uri-exact']?.status).toBe('pass');
    expect(byId['redirect-uri-exact']?.detail).toMatch(/^no redirect for changed path, /);
    expect(code).toBe(0);
  });

  it('par-client-binding skips without a second client, with the reason', async () => {
    const { byId } = await audit({}, ['--client-id', 'pub', '--pkce'], 'par-client-binding');
    expect(byId['par-client-binding']).toEqual({ status: 'skip', detail: 'needs a second registered client (--second-client-id)' });
  });

  it('a short-lived request_uri is waited out and refused (par-expiry runs)', async () => {
    const { byId } = await audit({ parExpiresIn: 1 }, PUBLIC, 'par-expiry');
    expect(byId['par-expiry']?.status).toBe('pass');
    expect(byId['par-expiry']?.detail).toMatch(/refused after 2 s: error page \(HTTP 400\)/);
  });
});

const CASES: { probe: string; weak: SecuredWeaknesses; client?: string[]; expected: ProbeStatus; detail: RegExp }[] = [
  { probe: 'par-required', weak: { requirePar: true }, expected: 'pass', detail: /not pushed was refused: error page/ },
  { probe: 'par-required', weak: { requirePar: true, parNotEnforced: true }, expected: 'fail', detail: /require_pushed_authorization_requests is true, but a request that was not pushed got a code/ },
  { probe: 'par-single-use', weak: { parReusable: true }, expected: 'warn', detail: /same request_uri got a second code/ },
  { probe: 'par-client-binding', weak: { parAnyClient: true }, expected: 'fail', detail: /client other got a code with a request_uri pushed by pub/ },
  { probe: 'par-expiry', weak: { parExpiresIn: 1, parNoExpiry: true }, expected: 'fail', detail: /got a code 2 s after it was pushed, past its expires_in of 1 s/ },
  // With --par the variants of the redirect URI are pushed: a public client's is a failure, an authenticated client's a warning (RFC 9126 section 2.4).
  {
    probe: 'redirect-uri-exact',
    weak: { parAnyRedirectUri: true },
    client: [...PUBLIC, '--par'],
    expected: 'fail',
    detail: /other host \(http:\/\/oauthctl-audit\.invalid\/callback\) got a redirect with a code/,
  },
  {
    probe: 'redirect-uri-exact',
    weak: { parAnyRedirectUri: true },
    client: [...JWT, '--par'],
    expected: 'warn',
    detail: /got a redirect with a code.* \(pushed by an authenticated client, which RFC 9126 §2\.4 lets a server allow\)/,
  },
  { probe: 'dpop-replay', weak: { dpopReplay: true }, expected: 'fail', detail: /same DPoP proof \(same jti\) was accepted/ },
  { probe: 'dpop-htm-htu', weak: { dpopIgnoreHtm: true }, expected: 'fail', detail: /wrong request \(htm=GET\)/ },
  { probe: 'dpop-htm-htu', weak: { dpopIgnoreHtu: true }, expected: 'fail', detail: /wrong request \(htu=http:\/\/127\.0\.0\.1:\d+\/oauthctl-audit\/other\)/ },
  { probe: 'dpop-bound-as-bearer', weak: { dpopBearerOk: true }, expected: 'fail', detail: /answered HTTP 200 to the DPoP-bound token sent as Bearer/ },
  { probe: 'client-assertion-replay', weak: { assertionReplay: true }, client: JWT, expected: 'warn', detail: /same client assertion \(same jti\) authenticated a second token request/ },
  { probe: 'client-assertion-audience', weak: { assertionAnyAudience: true }, client: JWT, expected: 'fail', detail: /aud=https:\/\/oauthctl-audit\.invalid\// },
  { probe: 'client-assertion-expired', weak: { assertionExpiredOk: true }, client: JWT, expected: 'fail', detail: /expired 10 minutes ago/ },
  {
    probe: 'jar-unsigned',
    weak: { acceptUnsignedRequest: true, requireSignedRequestObject: true },
    expected: 'fail',
    detail: /unsigned \(alg none\) request object got a code although require_signed_request_object is true/,
  },
  {
    probe: 'jar-unsigned',
    weak: { acceptUnsignedRequest: true },
    expected: 'warn',
    detail: /unsigned \(alg none\) request object got a code although alg none is not in \["ES256"\] \(the metadata does not say/,
  },
];

describe('second-round probes against servers weakened in exactly what each checks', () => {
  for (const c of CASES) {
    it(`${c.probe}: ${Object.keys(c.weak).join(', ')} -> ${c.expected}`, async () => {
      const { code, byId } = await audit(c.weak, c.client ?? PUBLIC, c.probe);
      expect(byId[c.probe]?.detail).toMatch(c.detail);
      expect(byId[c.probe]?.status).toBe(c.expected);
      expect(code).toBe(c.expected === 'fail' ? 1 : 0);
    });
  }
});
