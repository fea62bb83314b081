// The whole audit --plan fapi2 --dpop (without --fapi2): every token request the probes send carries the audit's
// DPoP proof, fresh each time and with the server's nonce, so a correct DPoP server passes; a server
// that issues bearer tokens still fails the sender constraint.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import { createMockServer, loadMockConfig, type MockServer } from '../../src/mock/index.js';
import { memoryIO } from '../agent/helpers/io.js';
import { ROOT } from '../helpers/cli.js';

const FIXTURE_KEY = join(ROOT, 'fixtures', 'mock', 'photo-jwt.key.pem');

async function audit(issuer: string, ...args: string[]) {
  const io = memoryIO();
  const code = await run(
    [
      'audit',
      '--plan',
      'fapi2',
      '--dpop',
      '--json',
      '--issuer',
      issuer,
      '--client-id',
      'photo-jwt',
      '--auth-method',
      'private_key_jwt',
      '--signing-key',
      FIXTURE_KEY,
      '--client-assertion-audience',
      'issuer',
      '--scope',
      'openid photo',
      '--username',
      'alice',
      '--password',
      'wonderland',
      ...args,
    ],
    io,
  );
  const report = JSON.parse(io.out()) as { probes: { id: string; status: string; detail: string }[]; summary: { plan: { passed: boolean; requirements: { text: string; status: string }[] } } };
  return { code, report, err: io.err() };
}

async function modernMock(extra: Record<string, unknown>): Promise<MockServer> {
  const config = await loadMockConfig(join(ROOT, 'fixtures', 'mock', 'modern.jsonc'));
  return createMockServer({ ...config, authorization_details_types: ['payment_initiation'], ...extra }, { consent: false });
}

describe('audit --plan fapi2 --dpop', () => {
  let fapi: MockServer;
  let plain: MockServer;
  beforeAll(async () => {
    [fapi, plain] = await Promise.all([modernMock({ security_profile: 'fapi2', dpop_nonce: true }), modernMock({})]);
  });
  afterAll(async () => {
    await Promise.all([fapi.close(), plain.close()]);
  });

  // The whole plan: it waits a minute for a code to expire (5.3.2.1).
  it('passes on serve-mock --fapi2 with DPoP nonces: every probe green, the code redeemed with a proof', async () => {
    const { code, report, err } = await audit(fapi.issuer);
    // The RS256 assertion and request object need an RSA key of the client (fapi2-plan-algorithms.test.ts): not applicable here.
    expect(
      report.probes.filter((p) => p.status !== 'pass').map((p) => `${p.id}: ${p.status}`),
      err,
    ).toEqual(['fapi2-assertion-rs256: skip', 'fapi2-request-object-rs256: skip']);
    expect(report.probes.find((p) => p.id === 'code-single-use')?.detail).toMatch(/^second use refused: HTTP 400 invalid_grant/);
    expect(report.probes.find((p) => p.id === 'pkce-wrong-verifier')?.detail).toBe('wrong code_verifier refused: HTTP 400 invalid_grant');
    expect(report.summary.plan.requirements.filter((q) => q.status === 'not met').map((q) => q.text)).toEqual([]);
    expect(report.summary.plan.passed).toBe(true);
    expect(code).toBe(0);
  }, 180_000);

  it('a server that issues bearer tokens without a proof still fails the sender constraint', async () => {
    const { code, report } = await audit(plain.issuer, '--skip', 'fapi2-code-lifetime');
    expect(code).toBe(1);
    const status = Object.fromEntries(report.probes.map((p) => [p.id, p.status]));
    expect(status['fapi2-sender-constrained']).toBe('fail');
    expect(report.probes.find((p) => p.id === 'fapi2-sender-constrained')?.detail).toMatch(/without a DPoP proof/);
    // The probes that redeem codes do it with a proof, so they test what they are about.
    expect(status['code-single-use']).toBe('pass');
    expect(status['pkce-wrong-verifier']).toBe('pass');
  }, 90_000);
});
