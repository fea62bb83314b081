import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { WEB_SECRET, startSecuredOidcProvider, type SecuredOidcProvider } from '../client/helpers/secured-oidc-provider.js';

let op: SecuredOidcProvider;
beforeAll(async () => {
  op = await startSecuredOidcProvider();
});
afterAll(async () => {
  await op.close();
});

const SECURED = [
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
];

async function audit(...args: string[]) {
  const io = memoryIO();
  const code = await run(['audit', '--issuer', op.issuer, '--scope', 'openid', '--username', 'bob', '--password', 'anything', '--json', '--probe', ['flow', ...SECURED].join(','), ...args], io);
  const report = JSON.parse(io.out()) as AuditReport;
  return { code, err: io.err(), status: Object.fromEntries(report.probes.map((p) => [p.id, p.status])), detail: Object.fromEntries(report.probes.map((p) => [p.id, p.detail])) };
}

describe('audit probes of PAR, DPoP, JWT client authentication and JAR against panva/oidc-provider 9', () => {
  it('public client: PAR and DPoP probes pass; the JWT probes skip with the reason', async () => {
    const { code, status, detail } = await audit('--client-id', 'native-cli', '--pkce', '--second-client-id', 'web-app', '--second-client-secret', WEB_SECRET);
    expect(status).toEqual({
      flow: 'pass',
      // Not required server-wide (only par-cli requires it).
      'par-required': 'skip',
      'par-single-use': 'pass',
      'par-client-binding': 'pass',
      // oidc-provider's request_uri lives 60 s: longer than the audit waits.
      'par-expiry': 'skip',
      'dpop-replay': 'pass',
      'dpop-htm-htu': 'pass',
      'dpop-bound-as-bearer': 'pass',
      'client-assertion-replay': 'skip',
      'client-assertion-audience': 'skip',
      'client-assertion-expired': 'skip',
      'jar-unsigned': 'pass',
    });
    expect(detail['par-expiry']).toMatch(/expires_in is 60 s; the audit waits at most 10 s/);
    expect(detail['client-assertion-replay']).toMatch(/give --auth-method private_key_jwt --signing-key FILE/);
    expect(code).toBe(0);
  });

  it('par-cli (PAR required of this client) with --par: the front-channel probes push their requests; none fails', async () => {
    const io = memoryIO();
    const front = 'flow,state,iss,code-single-use,pkce-required,pkce-plain,redirect-uri-exact,open-redirector,implicit-refused,repeated-params,unknown-params,framing,par-single-use,jar-unsigned';
    const code = await run(['audit', '--issuer', op.issuer, '--scope', 'openid', '--username', 'bob', '--password', 'anything', '--json', '--client-id', 'par-cli', '--par', '--only', front], io);
    const report = JSON.parse(io.out()) as AuditReport;
    const status = Object.fromEntries(report.probes.map((p) => [p.id, p.status]));
    const detail = Object.fromEntries(report.probes.map((p) => [p.id, p.detail]));
    // framing warns as without PAR: oidc-provider's development interaction pages set no framing header.
    const { framing, ...rest } = status;
    expect(framing).toBe('warn');
    expect(Object.entries(rest).filter(([, s]) => s !== 'pass')).toEqual([]);
    // The tampered requests were pushed, and refused by the PAR endpoint.
    expect(detail['pkce-required']).toMatch(/refused: the PAR endpoint answered HTTP 400 invalid_request: Authorization Server policy requires PKCE/);
    expect(detail['repeated-params']).toMatch(/^\/authorize: the PAR endpoint answered HTTP 400 invalid_request: 'state' parameter must not be provided twice/);
    expect(detail['jar-unsigned']).toMatch(/the PAR endpoint answered HTTP 400 invalid_request_object/);
    expect(code).toBe(0);
  });

  it('private_key_jwt client: the client-assertion probes pass, and so do token-post-only and repeated-params', async () => {
    const { code, status, detail } = await audit(
      '--client-id',
      'pkjwt-cli',
      '--pkce',
      '--auth-method',
      'private_key_jwt',
      '--signing-key',
      op.signingKeyPem,
      '--probe',
      'token-post-only,repeated-params',
    );
    expect(status).toMatchObject({ flow: 'pass', 'client-assertion-replay': 'pass', 'client-assertion-audience': 'pass', 'client-assertion-expired': 'pass', 'par-single-use': 'pass' });
    // The hand-made token requests carry a client assertion of their own.
    expect([status['token-post-only'], status['repeated-params']]).toEqual(['pass', 'pass']);
    expect(detail['token-post-only']).toMatch(/; client_assertion in the query string refused \(HTTP 400 invalid_request\)$/);
    expect(detail['client-assertion-audience']).toMatch(/HTTP 401 invalid_client/);
    expect(code).toBe(0);
  });
});
