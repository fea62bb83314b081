import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMockConfig } from '../../../src/mock/index.js';
import { DPOP_PROBES } from '../../../src/audit/probes/dpop/index.js';
import { form, startWeakenedMock, tokens, type Answer, type SeenRequest, type Weakness, type WeakenedMock } from '../helpers/tamper-proxy.js';
import { auditJson, statusesOf } from './helpers.js';

let server: WeakenedMock;
beforeAll(async () => {
  server = await startWeakenedMock(await loadMockConfig('fixtures/audit/depth.json'));
});
afterAll(() => server.close());

const DPOP_CLIENT = ['--client-id', 'photo-cli', '--pkce', '--scope', 'openid photo offline_access'];
const part = (jwt: string, i: number) => JSON.parse(Buffer.from(jwt.split('.')[i] ?? '', 'base64url').toString()) as Record<string, unknown>;
const proofOf = (req: SeenRequest) => (req.url.pathname === '/token' && typeof req.headers.dpop === 'string' ? req.headers.dpop : undefined);
/** A token endpoint that takes a proof it should refuse. */
const acceptProof = (bad: (header: Record<string, unknown>, claims: Record<string, unknown>, jws: string) => boolean): Weakness => ({
  answer: (req) => {
    const proof = proofOf(req);
    return proof && bad(part(proof, 0), part(proof, 1), proof) ? tokens({ token_type: 'DPoP' }) : undefined;
  },
});
const tokenResponse = (change: (body: Record<string, unknown>) => void): Weakness => ({
  rewrite: (req, res): Answer => {
    if (req.url.pathname !== '/token' || res.status !== 200) return res;
    const body = JSON.parse(res.body) as Record<string, unknown>;
    change(body);
    return { ...res, body: JSON.stringify(body) };
  },
});
const now = () => Date.now() / 1000;

const CASES: [string, Weakness, 'fail' | 'warn'][] = [
  ['dpop-token-type', tokenResponse((b) => (b.token_type = 'Bearer')), 'warn'],
  [
    'dpop-cnf-jkt',
    tokenResponse((b) => {
      const [h, c] = String(b.access_token).split('.');
      const claims = JSON.parse(Buffer.from(c ?? '', 'base64url').toString()) as Record<string, unknown>;
      delete claims.cnf;
      b.access_token = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.x`;
    }),
    'fail',
  ],
  ['dpop-refresh-binding', { answer: (req) => (req.url.pathname === '/token' && form(req).get('grant_type') === 'refresh_token' ? tokens({ token_type: 'DPoP' }) : undefined) }, 'fail'],
  ['dpop-alg-none', acceptProof((h) => h.alg === 'none'), 'fail'],
  ['dpop-hs256', acceptProof((h) => h.alg === 'HS256'), 'fail'],
  ['dpop-bad-signature', acceptProof((h) => h.alg === 'ES256'), 'fail'],
  ['dpop-typ', acceptProof((h) => h.typ === 'JWT'), 'fail'],
  ['dpop-private-jwk', acceptProof((h) => typeof h.jwk === 'object' && h.jwk !== null && 'd' in h.jwk), 'fail'],
  ['dpop-iat-old', acceptProof((_h, c) => Number(c.iat) < now() - 600), 'fail'],
  ['dpop-iat-future', acceptProof((_h, c) => Number(c.iat) > now() + 600), 'fail'],
];

describe('DPoP: proofs built wrong are refused, tokens bound', () => {
  it('the mock passes every DPoP probe', async () => {
    server.weakness = {};
    const { report } = await auditJson(server.url, ...DPOP_CLIENT, '--only', 'flow,dpop');
    expect(Object.entries(statusesOf(report)).filter(([, s]) => s !== 'pass')).toEqual([]);
    expect(report.probes.length).toBeGreaterThanOrEqual(DPOP_PROBES.length + 1);
  });

  it('a server that does not announce DPoP: skipped, and the report says what was not tested', async () => {
    server.weakness = {
      rewrite: (req, res) => {
        if (!req.url.pathname.startsWith('/.well-known/')) return res;
        const metadata = JSON.parse(res.body) as Record<string, unknown>;
        delete metadata.dpop_signing_alg_values_supported;
        return { ...res, body: JSON.stringify(metadata) };
      },
    };
    const { report } = await auditJson(server.url, ...DPOP_CLIENT, '--only', 'dpop');
    expect(new Set(report.probes.map((p) => p.status))).toEqual(new Set(['skip']));
    expect(report.summary.not_tested).toEqual([{ what: report.probes.map((p) => p.id).join(', '), why: 'the metadata has no dpop_signing_alg_values_supported (RFC 9449 section 5.1)' }]);
    expect(report.probes.map((p) => p.id)).toEqual(expect.arrayContaining(DPOP_PROBES.map((p) => p.id)));
  });

  it.each(CASES)('%s: a server weakened that way is caught', async (id, weakness, expected) => {
    server.weakness = weakness;
    const { byId } = await auditJson(server.url, ...DPOP_CLIENT, '--only', id);
    expect(byId[id]?.status, byId[id]?.detail).toBe(expected);
  });
});
