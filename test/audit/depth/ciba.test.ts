import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMockConfig } from '../../../src/mock/index.js';
import { CIBA_PROBES } from '../../../src/audit/probes/ciba/index.js';
import { form, rewriteJson, startWeakenedMock, tokens, type Answer, type SeenRequest, type Weakness, type WeakenedMock } from '../helpers/tamper-proxy.js';
import { auditJson, statusesOf } from './helpers.js';

let server: WeakenedMock;
beforeAll(async () => {
  server = await startWeakenedMock(await loadMockConfig('fixtures/audit/ciba.json'));
});
afterAll(() => server.close());

const CIBA_GRANT = 'urn:openid:params:grant-type:ciba';
const CONFIDENTIAL = [
  '--client-id',
  'photo-web',
  '--client-secret',
  'photo-web-secret',
  '--scope',
  'openid photo',
  '--second-client-id',
  'photo-other',
  '--second-client-secret',
  'photo-other-secret',
];
const ONLY = ['--only', 'category:ciba'];

const json = (status: number, body: unknown): Answer => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const at = (path: string, when: (req: SeenRequest) => boolean, answer: (req: SeenRequest) => Answer): Weakness => ({
  answer: (req) => (req.url.pathname === path && when(req) ? answer(req) : undefined),
});
/** The mock's token answers to the CIBA grant with one error code put in place of another. */
const tokenErrorAs = (from: string, to: string, when: (body: string) => boolean = () => true): Weakness => ({
  rewrite: (req, res) => (req.url.pathname === '/token' && form(req).get('grant_type') === CIBA_GRANT && res.body.includes(`"${from}"`) && when(res.body) ? json(400, { error: to }) : res),
});

/** A token endpoint that answers the second poll of a pending request with tokens nobody approved. */
function secondPollGetsTokens(): Weakness {
  const polled = new Set<string>();
  return {
    answer: (req) => {
      const id = req.url.pathname === '/token' && form(req).get('grant_type') === CIBA_GRANT ? form(req).get('auth_req_id') : null;
      if (!id) return undefined;
      if (polled.has(id)) return tokens();
      polled.add(id);
      return undefined;
    },
  };
}

const CASES: [string, () => Weakness, 'fail' | 'warn'][] = [
  [
    'ciba-unknown-auth-req-id',
    () =>
      at(
        '/token',
        (req) => form(req).get('auth_req_id')?.includes('made-up') ?? false,
        () => tokens(),
      ),
    'fail',
  ],
  ['ciba-unknown-auth-req-id', () => tokenErrorAs('invalid_grant', 'invalid_request'), 'warn'],
  ['ciba-slow-down', () => tokenErrorAs('slow_down', 'authorization_pending'), 'warn'],
  ['ciba-slow-down', secondPollGetsTokens, 'fail'],
  [
    'ciba-unknown-user',
    () =>
      at(
        '/backchannel',
        (req) => form(req).get('login_hint')?.includes('no-such-user') ?? false,
        () => json(200, { auth_req_id: 'weak', expires_in: 60, interval: 1 }),
      ),
    'warn',
  ],
  [
    'ciba-unknown-user',
    () =>
      at(
        '/backchannel',
        (req) => form(req).get('login_hint')?.includes('no-such-user') ?? false,
        () => json(400, { error: 'invalid_request' }),
      ),
    'warn',
  ],
  ['ciba-client-binding', () => tokenErrorAs('invalid_grant', 'authorization_pending', (body) => body.includes('another client')), 'fail'],
  [
    'ciba-openid-scope',
    () =>
      at(
        '/backchannel',
        (req) => !(form(req).get('scope') ?? '').split(' ').includes('openid'),
        () => json(200, { auth_req_id: 'weak', expires_in: 60 }),
      ),
    'fail',
  ],
];

describe('CIBA probes (OpenID Connect CIBA Core 1.0)', () => {
  it('the mock passes every one, each naming its clause of CIBA Core', async () => {
    server.weakness = {};
    const { report, byId } = await auditJson(server.url, ...CONFIDENTIAL, ...ONLY);
    expect(statusesOf(report), JSON.stringify(byId)).toEqual(Object.fromEntries(CIBA_PROBES.map((p) => [p.id, 'pass'])));
    for (const p of report.probes) expect(p.rfc).toMatch(/^CIBA Core §\d+(\.\d+)?$/);
  });

  it('a client the server will not let use CIBA, and a server without CIBA, skip them saying why', async () => {
    server.weakness = {};
    const pub = await auditJson(server.url, '--client-id', 'photo-cli', '--pkce', '--scope', 'openid photo', ...ONLY);
    for (const p of pub.report.probes) expect([p.id, p.status]).toEqual([p.id, 'skip']);
    expect(pub.byId['ciba-unknown-user']?.detail).toContain('unauthorized_client');
    server.weakness = rewriteJson(
      (req) => req.url.pathname.startsWith('/.well-known/'),
      (j) => delete j.backchannel_authentication_endpoint,
    );
    const none = await auditJson(server.url, ...CONFIDENTIAL, ...ONLY);
    for (const p of none.report.probes) expect([p.id, p.status, p.detail]).toEqual([p.id, 'skip', 'the server does not advertise a backchannel_authentication_endpoint (CIBA Core section 4)']);
  });

  it.each(CASES)('%s: a server weakened that way is caught (%#)', async (id, weakness, expected) => {
    server.weakness = weakness();
    const { byId } = await auditJson(server.url, ...CONFIDENTIAL, '--only', id);
    expect(byId[id]?.status, byId[id]?.detail).toBe(expected);
  });
});
