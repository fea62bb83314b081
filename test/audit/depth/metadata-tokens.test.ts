import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMockConfig } from '../../../src/mock/index.js';
import { METADATA_PROBES } from '../../../src/audit/probes/metadata/index.js';
import { TOKEN_PROBES } from '../../../src/audit/probes/tokens/index.js';
import { editJwt, form, rewriteJson, startWeakenedMock, tokens, type SeenRequest, type Weakness, type WeakenedMock } from '../helpers/tamper-proxy.js';
import { auditJson, statusesOf } from './helpers.js';

let server: WeakenedMock;
beforeAll(async () => {
  server = await startWeakenedMock(await loadMockConfig('fixtures/audit/depth.json'));
});
afterAll(() => server.close());

const CLIENT = ['--client-id', 'photo-cli', '--pkce', '--scope', 'openid photo offline_access', '--second-client-id', 'photo-other', '--second-client-secret', 'photo-other-secret'];
const metadata = (change: (m: Record<string, unknown>, req: SeenRequest) => void) => rewriteJson((req) => req.url.pathname.startsWith('/.well-known/'), change);
const tokenResponse = (change: (t: Record<string, unknown>) => void) => rewriteJson((req) => req.url.pathname === '/token', change);
let counter = 0;
const list = (m: Record<string, unknown>, field: string, value: string) => (m[field] = [...((m[field] as string[] | undefined) ?? []), value]);

const CASES: [string, Weakness, 'fail' | 'warn'][] = [
  ['metadata-no-implicit', metadata((m) => list(m, 'response_types_supported', 'token')), 'fail'],
  ['metadata-no-implicit', metadata((m) => list(m, 'grant_types_supported', 'implicit')), 'fail'],
  ['metadata-no-password-grant', metadata((m) => list(m, 'grant_types_supported', 'password')), 'fail'],
  ['metadata-no-alg-none', metadata((m) => list(m, 'token_endpoint_auth_signing_alg_values_supported', 'none')), 'fail'],
  ['metadata-iss-parameter', metadata((m) => delete m.authorization_response_iss_parameter_supported), 'warn'],
  ['metadata-documents-agree', metadata((m, req) => req.url.pathname.endsWith('openid-configuration') && (m.token_endpoint = 'https://elsewhere.example/token')), 'fail'],
  [
    'jwks-kid-unique',
    rewriteJson(
      (req) => req.url.pathname === '/jwks',
      (j) => (j.keys = [...(j.keys as unknown[]), ...(j.keys as unknown[])]),
    ),
    'fail',
  ],
  [
    'code-entropy',
    {
      rewrite: (_req, res) => {
        if (!res.headers.location?.includes('code=')) return res;
        const location = new URL(res.headers.location);
        location.searchParams.set('code', `c${++counter}`);
        return { ...res, headers: { ...res.headers, location: location.href } };
      },
    },
    'fail',
  ],
  ['access-token-entropy', tokenResponse((t) => (t.access_token = `at-${++counter}`)), 'fail'],
  ['refresh-token-entropy', tokenResponse((t) => (t.refresh_token = `rt-${++counter}`)), 'fail'],
  ['access-token-lifetime', tokenResponse((t) => (t.expires_in = 7 * 86400)), 'warn'],
  ['token-type', tokenResponse((t) => delete t.token_type), 'fail'],
  ['access-token-jwt-typ', tokenResponse((t) => (t.access_token = editJwt(String(t.access_token), (h) => (h.typ = 'JWT')))), 'warn'],
  ['access-token-jwt-claims', tokenResponse((t) => (t.access_token = editJwt(String(t.access_token), (_h, c) => delete c.aud))), 'fail'],
  ['refresh-scope-widening', { answer: (req) => (req.url.pathname === '/token' && form(req).get('grant_type') === 'refresh_token' && form(req).has('scope') ? tokens() : undefined) }, 'fail'],
  [
    'refresh-token-client-binding',
    { answer: (req) => (req.url.pathname === '/token' && form(req).get('grant_type') === 'refresh_token' && req.headers.authorization?.startsWith('Basic ') ? tokens() : undefined) },
    'fail',
  ],
];

describe('metadata and tokens', () => {
  it('the mock passes every probe of both categories', async () => {
    server.weakness = {};
    const { report } = await auditJson(server.url, ...CLIENT, '--only', 'flow,category:metadata,tokens');
    expect(Object.entries(statusesOf(report)).filter(([, s]) => s !== 'pass')).toEqual([]);
    expect(report.probes.map((p) => p.id)).toEqual(expect.arrayContaining([...METADATA_PROBES, ...TOKEN_PROBES].map((p) => p.id)));
  });

  it('without a refresh token or a second client, the report says what was not tested', async () => {
    server.weakness = {};
    const { report } = await auditJson(server.url, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--only', 'tokens');
    expect(report.summary.not_tested).toEqual([
      { what: 'refresh-token-entropy, refresh-scope-widening', why: 'no refresh token was issued (ask for offline_access in --scope)' },
      { what: 'refresh-token-client-binding', why: 'no second client (give --second-client-id and --second-client-secret)' },
    ]);
  });

  it.each(CASES)('%s: a server weakened that way is caught', async (id, weakness, expected) => {
    server.weakness = weakness;
    const { byId } = await auditJson(server.url, ...CLIENT, '--only', id);
    expect(byId[id]?.status, byId[id]?.detail).toBe(expected);
  });
});
