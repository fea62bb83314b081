import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMockConfig } from '../../../src/mock/index.js';
import { CONCURRENCY_PROBES } from '../../../src/audit/probes/concurrency/index.js';
import { PAR_PROBES } from '../../../src/audit/probes/par/index.js';
import { DEVICE_PROBES } from '../../../src/audit/probes/device/index.js';
import { REVOCATION_PROBES } from '../../../src/audit/probes/revocation/index.js';
import { INTROSPECTION_PROBES } from '../../../src/audit/probes/introspection/index.js';
import { codeRedirect, form, rewriteJson, startWeakenedMock, tokens, type Answer, type SeenRequest, type Weakness, type WeakenedMock } from '../helpers/tamper-proxy.js';
import { auditJson, statusesOf } from './helpers.js';

let server: WeakenedMock;
beforeAll(async () => {
  server = await startWeakenedMock(await loadMockConfig('fixtures/audit/depth.json'));
});
afterAll(() => server.close());

const SECOND = ['--second-client-id', 'photo-other', '--second-client-secret', 'photo-other-secret'];
const PUBLIC = ['--client-id', 'photo-cli', '--pkce', '--scope', 'openid photo offline_access', ...SECOND];
const CONFIDENTIAL = ['--client-id', 'photo-web', '--client-secret', 'photo-web-secret', '--scope', 'openid photo offline_access', ...SECOND];
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const at = (path: string, when: (req: SeenRequest) => boolean, answer: (req: SeenRequest) => Answer | undefined): Weakness => ({
  answer: (req) => (req.url.pathname === path && when(req) ? answer(req) : undefined),
});
const ok = (body: unknown = {}): Answer => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const pushed = (): Answer => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ request_uri: `urn:ietf:params:oauth:request_uri:r${++counter}`, expires_in: 60 }),
});
let counter = 0;

/** A token endpoint that does not mark `param` used: a second use, refused by the mock, gets tokens all the same. */
function reusable(param: string): Weakness {
  return {
    rewrite: (req, res) =>
      req.url.pathname === '/token' && form(req).has(param) && res.status === 400 && res.body.includes('invalid_grant') ? tokens({ refresh_token: `rt-${++counter}`, token_type: 'Bearer' }) : res,
  };
}

/** A revocation endpoint that answers 200 and does nothing. */
const revocationIgnored: Weakness = at(
  '/revoke',
  () => true,
  () => ok(),
);

const CASES: [string, () => Weakness, 'fail' | 'warn', string[]?][] = [
  ['code-parallel-redemption', () => reusable('code'), 'fail'],
  ['refresh-parallel', () => reusable('refresh_token'), 'fail'],
  ['device-code-parallel', () => reusable('device_code'), 'fail'],
  ['par-request-uri-param', () => at('/par', (req) => form(req).has('request_uri'), pushed), 'fail'],
  ['par-unauthenticated', () => at('/par', (req) => req.headers.authorization === undefined && !form(req).has('client_secret'), pushed), 'fail', CONFIDENTIAL],
  [
    'par-expires-in',
    () =>
      rewriteJson(
        (req) => req.url.pathname === '/par',
        (j) => (j.expires_in = 86400),
      ),
    'warn',
  ],
  [
    'par-request-uri-entropy',
    () =>
      rewriteJson(
        (req) => req.url.pathname === '/par',
        (j) => (j.request_uri = 'urn:ietf:params:oauth:request_uri:1'),
      ),
    'fail',
  ],
  ['par-unknown-request-uri', () => at('/authorize', (req) => req.url.searchParams.get('request_uri')?.endsWith('made-up') ?? false, codeRedirect), 'fail'],
  ['par-get-refused', () => at('/par', (req) => req.method === 'GET', pushed), 'fail'],
  [
    'device-user-code-entropy',
    () =>
      rewriteJson(
        (req) => req.url.pathname === '/device_authorization',
        (j) => (j.user_code = '1234'),
      ),
    'fail',
  ],
  [
    'device-code-entropy',
    () =>
      rewriteJson(
        (req) => req.url.pathname === '/device_authorization',
        (j) => (j.device_code = `dc${++counter}`),
      ),
    'fail',
  ],
  [
    'device-pending',
    () =>
      at(
        '/token',
        (req) => form(req).get('grant_type') === DEVICE_GRANT,
        () => tokens(),
      ),
    'fail',
  ],
  [
    'device-unknown-device-code',
    () =>
      at(
        '/token',
        (req) => form(req).get('device_code')?.includes('made-up') ?? false,
        () => tokens(),
      ),
    'fail',
  ],
  [
    'device-code-client-binding',
    () =>
      at(
        '/token',
        (req) => form(req).get('grant_type') === DEVICE_GRANT && req.headers.authorization !== undefined,
        () => tokens(),
      ),
    'fail',
  ],
  ['revocation-access-token', () => revocationIgnored, 'fail'],
  ['revocation-refresh-token', () => revocationIgnored, 'fail'],
  [
    'revocation-unknown-token',
    () =>
      at(
        '/revoke',
        (req) => form(req).get('token')?.includes('made-up') ?? false,
        () => ({ status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":"invalid_token"}' }),
      ),
    'warn',
  ],
  [
    'revocation-other-client',
    () => ({
      answer: (req) => {
        if (req.url.pathname !== '/revoke' || !req.headers.authorization) return undefined;
        // Revokes whatever it is given, whoever asks: the token's family is gone for its real client too.
        revokedByOthers.add(form(req).get('token') ?? '');
        return ok();
      },
      rewrite: (req, res) =>
        req.url.pathname === '/token' && revokedByOthers.has(form(req).get('refresh_token') ?? '')
          ? { status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":"invalid_grant"}' }
          : res,
    }),
    'fail',
  ],
  [
    'revocation-unauthenticated',
    () => ({
      ...at(
        '/revoke',
        (req) => req.headers.authorization === undefined,
        (req) => (revokedByOthers.add(form(req).get('token') ?? ''), ok()),
      ),
      // What it revoked is inactive from then on.
      rewrite: (req, res) => (req.url.pathname === '/introspect' && revokedByOthers.has(form(req).get('token') ?? '') ? ok({ active: false }) : res),
    }),
    'fail',
    CONFIDENTIAL,
  ],
  [
    'introspection-unauthenticated',
    () =>
      at(
        '/introspect',
        (req) => req.headers.authorization === undefined && !form(req).has('client_secret'),
        () => ok({ active: true, sub: 'alice' }),
      ),
    'fail',
  ],
  [
    'introspection-unknown-token',
    () =>
      at(
        '/introspect',
        (req) => form(req).get('token')?.includes('made-up') ?? false,
        () => ok({ active: true }),
      ),
    'fail',
    CONFIDENTIAL,
  ],
];
const revokedByOthers = new Set<string>();

describe('concurrency, PAR, device flow, revocation and introspection', () => {
  it('the mock passes them (public client; confidential-only probes skip, saying why)', async () => {
    server.weakness = {};
    const { report } = await auditJson(server.url, ...PUBLIC, '--only', 'flow,concurrency,category:par,category:device,revocation,introspection');
    expect(Object.entries(statusesOf(report)).filter(([, s]) => s !== 'pass')).toEqual([
      ['par-required', 'skip'],
      ['par-expiry', 'skip'],
      ['par-unauthenticated', 'skip'],
      ['revocation-unauthenticated', 'skip'],
      ['introspection-unknown-token', 'skip'],
    ]);
    expect(report.probes.map((p) => p.id)).toEqual(expect.arrayContaining([...CONCURRENCY_PROBES, ...PAR_PROBES, ...DEVICE_PROBES, ...REVOCATION_PROBES, ...INTROSPECTION_PROBES].map((p) => p.id)));
  });

  it('the mock passes the confidential-only ones for a confidential client', async () => {
    server.weakness = {};
    const { report } = await auditJson(server.url, ...CONFIDENTIAL, '--only', 'par-unauthenticated,revocation-unauthenticated,introspection-unknown-token');
    expect(statusesOf(report)).toEqual({ 'par-unauthenticated': 'pass', 'revocation-unauthenticated': 'pass', 'introspection-unknown-token': 'pass' });
  });

  it.each(CASES)('%s: a server weakened that way is caught', async (id, weakness, expected, client = PUBLIC) => {
    server.weakness = weakness();
    const { byId } = await auditJson(server.url, ...client, '--only', id);
    expect(byId[id]?.status, byId[id]?.detail).toBe(expected);
  });
});
