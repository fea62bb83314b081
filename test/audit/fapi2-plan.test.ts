// audit --plan fapi2: passes on the mock in fapi2 mode and on oidc-provider configured for the FAPI 2.0
// Security Profile; fails, naming the clauses, on the plain mock.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import { createMockServer, loadMockConfig, type MockServer } from '../../src/mock/index.js';
import { memoryIO } from '../agent/helpers/io.js';
import { ROOT } from '../helpers/cli.js';
import { startFapiOidcProvider, type FapiOidcProvider } from '../client/helpers/fapi-oidc-provider.js';

const FIXTURE_KEY = join(ROOT, 'fixtures', 'mock', 'photo-jwt.key.pem');

interface PlanSummary {
  name: string;
  passed: boolean;
  requirements: { clause: string; text: string; status: string; missing: string[] }[];
}

async function audit(args: string[]) {
  const io = memoryIO();
  const code = await run(['audit', '--plan', 'fapi2', '--fapi2', '--json', '--username', 'alice', '--password', 'wonderland', ...args], io);
  const report = JSON.parse(io.out()) as { probes: { id: string; status: string; detail: string }[]; summary: { plan: PlanSummary } };
  return { code, plan: report.summary.plan, status: Object.fromEntries(report.probes.map((p) => [p.id, p.status])), err: io.err() };
}

async function modernMock(extra: Record<string, unknown>): Promise<MockServer> {
  const config = await loadMockConfig(join(ROOT, 'fixtures', 'mock', 'modern.jsonc'));
  return createMockServer({ ...config, authorization_details_types: ['payment_initiation'], ...extra }, { consent: false });
}

describe('audit --plan fapi2', () => {
  let fapi: MockServer;
  let plain: MockServer;
  let op: FapiOidcProvider;
  beforeAll(async () => {
    [fapi, plain, op] = await Promise.all([modernMock({ security_profile: 'fapi2' }), modernMock({}), startFapiOidcProvider()]);
  });
  afterAll(async () => {
    await Promise.all([fapi.close(), plain.close(), op.close()]);
  });

  // Each waits 61 s for a code to expire (5.3.2.1); run side by side.
  it.concurrent(
    'passes on serve-mock --fapi2: every requirement met, JARM and RAR too',
    async () => {
      const r = await audit(['--issuer', fapi.issuer, '--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', FIXTURE_KEY, '--scope', 'openid photo']);
      // With an EC key no RS256 assertion or request object can be offered: those two are not applicable.
      expect(
        r.plan.requirements.filter((q) => q.status !== 'met').map((q) => `${q.status}: ${q.text}`),
        r.err,
      ).toEqual([
        "not applicable: refuses client assertions signed RS256, where the client's key is RSA",
        "not applicable: refuses request objects signed RS256, where it takes them and the client's key is RSA",
      ]);
      expect(r.plan).toMatchObject({ name: 'fapi2', passed: true });
      expect(r.code).toBe(0);
    },
    150_000,
  );

  it.concurrent(
    "passes on oidc-provider's FAPI 2.0 configuration",
    async () => {
      const r = await audit(['--issuer', op.issuer, '--client-id', 'fapi-cli', '--auth-method', 'private_key_jwt', '--signing-key', op.signingKeyPem, '--scope', 'openid', '--username', 'bob']);
      expect(
        r.plan.requirements.filter((q) => q.status === 'not met'),
        r.err,
      ).toEqual([]);
      expect(r.plan.passed).toBe(true);
      expect(r.code).toBe(0);
    },
    150_000,
  );

  it('fails on the plain mock, naming the clauses not met', async () => {
    const r = await audit([
      '--issuer',
      plain.issuer,
      '--client-id',
      'photo-jwt',
      '--auth-method',
      'private_key_jwt',
      '--signing-key',
      FIXTURE_KEY,
      '--scope',
      'openid photo',
      '--skip',
      'fapi2-code-lifetime',
    ]);
    expect(r.code).toBe(1);
    expect(r.plan.passed).toBe(false);
    const unmet = r.plan.requirements.filter((q) => q.status === 'not met').map((q) => `${q.clause} ${q.text}`);
    expect(unmet).toEqual([
      '5.3.2.1 distributes its metadata, announcing what the profile requires',
      '5.3.2.1 issues sender-constrained access tokens only (DPoP or mTLS)',
      '5.3.2.1 accepts only its issuer identifier as the audience of client assertions',
      '5.3.2.1 issues authorization codes that live at most 60 s and work once',
      '5.3.2.2 requires pushed authorization requests',
      '5.3.2.2 requires PKCE with S256',
      '5.4.1 signs with PS256, ES256 or EdDSA, and announces no other signing algorithm',
      '5.4.1 refuses DPoP proofs signed RS256, where it takes DPoP',
    ]);
    expect(r.status['fapi2-sender-constrained']).toBe('fail');
    // The plain mock takes a request that was not pushed: under the plan that fails, whatever the metadata says.
    expect(r.status['par-required']).toBe('fail');
    expect(r.plan.requirements.find((q) => q.text.startsWith('issues authorization codes'))?.missing).toEqual(['fapi2-code-lifetime: not run']);
  }, 60_000);

  it('the text report ends with the plan, each requirement by clause', async () => {
    const io = memoryIO();
    const code = await run(
      [
        'audit',
        '--plan',
        'fapi2',
        '--fapi2',
        '--issuer',
        plain.issuer,
        '--client-id',
        'photo-jwt',
        '--auth-method',
        'private_key_jwt',
        '--signing-key',
        FIXTURE_KEY,
        '--scope',
        'openid photo',
        '--username',
        'alice',
        '--password',
        'wonderland',
        '--only',
        'fapi2-metadata,par-required',
      ],
      io,
    );
    expect(code).toBe(1);
    expect(io.out()).toMatch(/plan fapi2 \(FAPI 2\.0 Security Profile \(final\), authorization server\): FAILED/);
    expect(io.out()).toMatch(/not met +5\.3\.2\.2 +requires pushed authorization requests\n +par-required: fail \(a plain request to \/authorize, not pushed, got a code/);
  }, 60_000);

  it('--list: the fapi2 probes only with the plan (or --only), the plan listing every probe it needs', async () => {
    const list = async (...args: string[]) => {
      const io = memoryIO();
      await run(['audit', '--list', '--json', ...args], io);
      return (JSON.parse(io.out()) as { probes: { id: string; category: string }[] }).probes;
    };
    expect((await list()).filter((p) => p.category === 'fapi2')).toEqual([]);
    const plan = (await list('--plan', 'fapi2')).map((p) => p.id);
    expect(plan).toEqual(expect.arrayContaining(['fapi2-metadata', 'fapi2-code-lifetime', 'jarm-response', 'rar-unknown-type', 'par-required', 'iss', 'open-redirector']));
    expect(plan).not.toContain('refresh-rotation');
    expect((await list('--only', 'fapi2')).map((p) => p.id)).toEqual([
      'fapi2-metadata',
      'fapi2-pkce-required',
      'fapi2-sender-constrained',
      'fapi2-assertion-audience',
      'fapi2-metadata-algs',
      'fapi2-signing-alg',
      'fapi2-assertion-rs256',
      'fapi2-request-object-rs256',
      'fapi2-dpop-rs256',
      'jarm-response',
      'rar-unknown-type',
      'fapi2-code-lifetime',
    ]);
  });

  it('an unknown plan is a usage error', async () => {
    const io = memoryIO();
    expect(await run(['audit', '--plan', 'fapi1', '--issuer', plain.issuer, '--client-id', 'x'], io)).toBe(2);
    expect(io.err()).toMatch(/--plan.*fapi1/);
  });
});
