import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import type { AuditReport, ProbeStatus } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { startWeakServer, type WeakServer, type Weaknesses } from './helpers/weak-server.js';

let server: WeakServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PUBLIC = ['--client-id', 'pub', '--pkce'];
const CONFIDENTIAL = ['--client-id', 'conf', '--client-secret', 'conf-secret'];

async function audit(weak: Weaknesses, client: string[], ...extra: string[]): Promise<{ code: number; report: AuditReport; byId: Record<string, { status: ProbeStatus; detail: string }> }> {
  server = await startWeakServer(weak);
  const io = memoryIO();
  const code = await run(
    ['audit', '--auth-url', server.url, ...client, '--scope', 'photo', '--redirect-uri', 'http://127.0.0.1/callback', '--username', 'u', '--password', 'p', '--json', ...extra],
    io,
  );
  const report = JSON.parse(io.out()) as AuditReport;
  const byId = Object.fromEntries(report.probes.map((p) => [p.id, { status: p.status, detail: p.detail }]));
  return { code, report, byId };
}

describe('audit against a correct server', () => {
  it('passes every probe (the baseline the weakened servers are compared with)', async () => {
    const { code, report } = await audit({}, PUBLIC, '--second-client-id', 'other', '--second-client-secret', 'other-secret');
    expect(report.probes.filter((p) => p.status !== 'pass').map((p) => p.id)).toEqual(['client-secret-wrong']);
    expect(code).toBe(0);
    const confidential = await audit({}, CONFIDENTIAL);
    expect(confidential.byId['client-secret-wrong']?.status).toBe('pass');
  });
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
  { probe: 'refresh-rotation', weak: { noRotation: true }, expected: 'warn', detail: /not rotated/ },
  { probe: 'refresh-rotation', weak: { refreshReuse: true }, expected: 'warn', detail: /old refresh token still works/ },
  { probe: 'refresh-rotation', weak: { noRefreshTokens: true }, expected: 'skip', detail: /no refresh token issued/ },
];

function weaknessCases(...driver: string[]): void {
  for (const c of CASES) {
    it(`${c.probe}: ${Object.keys(c.weak).join(', ')} -> ${c.expected}`, async () => {
      const { code, byId } = await audit(c.weak, c.client ?? PUBLIC, '--probe', c.probe === 'token-no-store' ? 'flow,token-no-store' : c.probe, ...(c.extra ?? []), ...driver);
      expect(byId[c.probe]?.status).toBe(c.expected);
      expect(byId[c.probe]?.detail).toMatch(c.detail);
      expect(code).toBe(c.expected === 'fail' ? 1 : 0);
    });
  }
}

// The same verdicts when the authorization requests go through a real browser: the browser navigator
// must report what the built-in agent reports (redirects, fragments, error pages) and send nothing to
// the redirect URI or other hosts.
describe.skipIf(!existsSync('/usr/bin/chromium'))('audit --browser-driver chromium: the same verdicts through a real browser', () => {
  it('passes every probe against a correct server', async () => {
    const { code, report } = await audit({}, PUBLIC, '--second-client-id', 'other', '--second-client-secret', 'other-secret', '--browser-driver', 'chromium');
    expect(report.probes.filter((p) => p.status !== 'pass').map((p) => p.id)).toEqual(['client-secret-wrong']);
    expect(code).toBe(0);
  });
  weaknessCases('--browser-driver', 'chromium');
});

describe('audit against weakened servers: every probe catches its weakness', () => {
  weaknessCases();

  it('skips the probes that need a working flow when the flow fails', async () => {
    const { report } = await audit({ brokenToken: true }, PUBLIC);
    const byStatus = (s: ProbeStatus) => report.probes.filter((p) => p.status === s).map((p) => p.id);
    expect(byStatus('fail')).toEqual(['flow']);
    expect(byStatus('pass')).toEqual(['https-endpoints', 'error-format']);
    expect(report.probes.find((p) => p.id === 'state')?.detail).toBe('needs a working flow (the flow probe failed)');
  });
});
