import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT } from '../helpers/chromium.js';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport, ProbeStatus } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { startSecuredWeakServer, type SecuredWeaknesses } from './helpers/secured-weak-server.js';
import { startWeakServer, type Weaknesses } from './helpers/weak-server.js';
import { PROBES, RUN_FIRST } from '../../src/audit/probes/index.js';

/** The probes that run first (RUN_FIRST); the others are tested by category in test/audit/depth/. These small servers implement only what the first look at. */
const RUN_FIRST_ONLY = [
  '--skip',
  PROBES.filter((p) => !RUN_FIRST.includes(p.id))
    .map((p) => p.id)
    .join(','),
];

// A refused request is not a failed probe: a probe fails only when the server did the unsafe thing
// (issued a code, redirected, answered tokens). These servers refuse in the ways real ones do: a PAR
// endpoint that refuses the client's authentication, a portal whose error page is filled in by script
// and never redirects.

let close: (() => Promise<void>) | undefined;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-refused-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await close?.();
  close = undefined;
});

type ById = Record<string, { status: ProbeStatus; detail: string }>;

async function runAudit(args: string[]): Promise<{ code: number; byId: ById }> {
  const io = memoryIO();
  const code = await run(['audit', ...args, ...RUN_FIRST_ONLY, '--username', 'u', '--password', 'p', '--json'], io);
  const report = JSON.parse(io.out()) as AuditReport;
  return { code, byId: Object.fromEntries(report.probes.map((p) => [p.id, { status: p.status, detail: p.detail }])) };
}

async function securedAudit(weak: SecuredWeaknesses, probes: string, client: string[] = ['--client-id', 'pub', '--pkce']) {
  const server = await startSecuredWeakServer(weak);
  close = server.close;
  const keyFile = join(dir, 'jwt.pem');
  writeFileSync(keyFile, server.jwtClientKeyPem);
  return runAudit(['--auth-url', server.url, ...client.map((a) => (a === 'KEY' ? keyFile : a)), '--scope', 'openid', '--probe', probes]);
}

async function portalAudit(weak: Weaknesses, probes?: string, ...extra: string[]) {
  const server = await startWeakServer({ portal: true, ...weak });
  close = server.close;
  return runAudit([
    '--auth-url',
    server.url,
    '--client-id',
    'pub',
    '--pkce',
    '--scope',
    'photo openid',
    '--redirect-uri',
    'http://127.0.0.1/callback',
    ...(probes ? ['--probe', probes] : []),
    ...extra,
  ]);
}

const SECOND = ['--second-client-id', 'other', '--second-client-secret', 'other-secret'];
const JWT = ['--client-id', 'jwt', '--pkce', '--auth-method', 'private_key_jwt', '--signing-key', 'KEY'];

describe('a pushed request refused for client authentication: the PAR probes skip, saying why', () => {
  it.each(['par-single-use', 'par-client-binding', 'par-expiry'])('%s skips when nothing was ever pushed', async (probe) => {
    const { code, byId } = await securedAudit({ parRefusesClients: true, parExpiresIn: 1 }, probe, ['--client-id', 'pub', '--pkce', ...SECOND]);
    expect(byId[probe]).toEqual({
      status: 'skip',
      detail: expect.stringMatching(/^nothing to test: the pushed authorization request was refused \(the PAR endpoint answered HTTP 401 invalid_client\)$/) as unknown,
    });
    expect(code).toBe(0);
  });

  it('with --par, a probe whose request was never pushed skips instead of counting the 401 as a refusal', async () => {
    // The flow works without PAR; the variants of redirect-uri-exact are pushed and refused for the client's authentication.
    const server = await startSecuredWeakServer({ parRefusesClients: true });
    close = server.close;
    const { byId } = await runAudit(['--auth-url', server.url, '--client-id', 'pub', '--pkce', '--scope', 'openid', '--par', '--probe', 'open-redirector,implicit-refused']);
    expect(byId['open-redirector']?.status).toBe('skip');
    expect(byId['open-redirector']?.detail).toMatch(
      /^the PAR endpoint refused the client's authentication, so the request this probe builds on was never pushed: the PAR endpoint answered HTTP 401 invalid_client$/,
    );
    expect(byId['implicit-refused']?.status).toBe('skip');
  });

  it('on a portal, the page of a request that was not pushed is the refusal par-required looks for', async () => {
    const { byId } = await securedAudit({ portal: true, requirePar: true }, 'flow,par-single-use,par-required', JWT);
    expect(byId.flow?.status).toBe('pass');
    expect(byId['par-single-use']?.status).toBe('pass');
    expect(byId['par-required']).toEqual({
      status: 'pass',
      detail: expect.stringMatching(/^a request that was not pushed was refused: a page without a redirect \(HTTP 200 at http:\/\/127\.0\.0\.1:\d+\/authorize\?/) as unknown,
    });
  });
});

describe('a portal that refuses with a page filled in by script, never a redirect', () => {
  it('the whole audit: nothing fails; the probes that look for a redirect pass and say what stopped them', async () => {
    const { code, byId } = await portalAudit({});
    const failed = Object.entries(byId).filter(([, r]) => r.status === 'fail');
    expect(failed).toEqual([]);
    for (const probe of ['redirect-uri-exact', 'open-redirector', 'implicit-refused', 'pkce-required', 'pkce-plain', 'repeated-params']) expect(byId[probe]?.status, probe).toBe('pass');
    expect(byId['redirect-uri-exact']?.detail).toMatch(/^no redirect for changed path, added path segment/);
    expect(byId['device-unknown-user-code']?.detail).toMatch(/^the page for the forged code [A-Z]{8} cannot be read by the audit's user agent \(the page at .* needs JavaScript/);
    expect(byId['pkce-required']?.detail).toMatch(/refused: a page without a redirect \(HTTP 200 at http:\/\/127\.0\.0\.1:\d+\/authorize\?.*: Portal\)$/);
    expect(code).toBe(0);
  }, 60_000);

  it.skipIf(!existsSync('/usr/bin/chromium'))(
    'through Chromium (--browser-driver chromium): the rendered refusal is read, nothing fails, no step waits long',
    async () => {
      const started = Date.now();
      const { code, byId } = await portalAudit({}, 'flow,redirect-uri-exact,open-redirector,implicit-refused', '--browser-driver', 'chromium');
      expect(Object.fromEntries(Object.entries(byId).map(([id, r]) => [id, r.status]))).toEqual({ flow: 'pass', 'redirect-uri-exact': 'pass', 'open-redirector': 'pass', 'implicit-refused': 'pass' });
      expect(byId['open-redirector']?.detail).toMatch(/^an error page \(HTTP 200\), no redirect/);
      expect(code).toBe(0);
      // Fourteen refusal pages: each is given a short while to change, not the step timeout (which would be 140 s).
      expect(Date.now() - started).toBeLessThan(120_000);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it('still fails the server that does the unsafe thing behind its portal', async () => {
    const { byId } = await portalAudit({ redirectUriMatch: 'prefix' }, 'flow,redirect-uri-exact');
    expect(byId['redirect-uri-exact']?.status).toBe('fail');
    expect(byId['redirect-uri-exact']?.detail).toMatch(/changed path .* got a redirect with a code/);
  });

  it('before any request got through the pages, an unreadable page is a skip that says why, not a pass', async () => {
    const { byId } = await portalAudit({ autoLogin: true }, 'open-redirector');
    expect(byId['open-redirector']?.status).toBe('skip');
    expect(byId['open-redirector']?.detail).toMatch(/^no redirect, but no request got through this server's pages yet, .*the page at http:\/\/127\.0\.0\.1:\d+\/authorize\?.* needs JavaScript/);
  });

  it('jar-unsigned on a portal that refuses the unsigned request object: pass', async () => {
    const { byId } = await securedAudit({ portal: true }, 'flow,jar-unsigned');
    expect(byId['jar-unsigned']?.status).toBe('pass');
    expect(byId['jar-unsigned']?.detail).toMatch(/^alg none refused \(alg none is not in \["ES256"\]\): a page without a redirect \(HTTP 200 at .*: Portal\)$/);
  });
});

describe('severity follows RFC 9101 section 10.5', () => {
  it('an unsigned request object taken by a server that does not require signed ones: a warning (inconsistent metadata)', async () => {
    const { code, byId } = await securedAudit({ acceptUnsignedRequest: true }, 'jar-unsigned');
    expect(byId['jar-unsigned']).toEqual({
      status: 'warn',
      detail: 'an unsigned (alg none) request object got a code although alg none is not in ["ES256"] (the metadata does not say require_signed_request_object, but it is inconsistent)',
    });
    expect(code).toBe(0);
  });

  it('... by a server that announces require_signed_request_object: a failure', async () => {
    const { code, byId } = await securedAudit({ acceptUnsignedRequest: true, requireSignedRequestObject: true }, 'jar-unsigned');
    expect(byId['jar-unsigned']).toEqual({ status: 'fail', detail: 'an unsigned (alg none) request object got a code although require_signed_request_object is true' });
    expect(code).toBe(1);
  });
});
