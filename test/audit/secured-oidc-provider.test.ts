import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
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

  it('private_key_jwt client: the client-assertion probes pass', async () => {
    const { code, status, detail } = await audit('--client-id', 'pkjwt-cli', '--pkce', '--auth-method', 'private_key_jwt', '--signing-key', op.signingKeyPem);
    expect(status).toMatchObject({ flow: 'pass', 'client-assertion-replay': 'pass', 'client-assertion-audience': 'pass', 'client-assertion-expired': 'pass', 'par-single-use': 'pass' });
    expect(detail['client-assertion-audience']).toMatch(/HTTP 401 invalid_client/);
    expect(code).toBe(0);
  });
});
