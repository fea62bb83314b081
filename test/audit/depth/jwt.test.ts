import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMockConfig } from '../../../src/mock/index.js';
import { decodeJwtUnverified } from '../../../src/oauth/jwt.js';
import { JWT_PROBES } from '../../../src/audit/probes/jwt/index.js';
import { RUN_FIRST } from '../../../src/audit/probes/index.js';
import { codeRedirect, form, startWeakenedMock, tokens, type SeenRequest, type WeakenedMock } from '../helpers/tamper-proxy.js';
import { auditJson, statusesOf } from './helpers.js';

let server: WeakenedMock;
beforeAll(async () => {
  server = await startWeakenedMock(await loadMockConfig('fixtures/audit/depth.json'));
});
afterAll(() => server.close());

const JWT_CLIENT = ['--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', 'fixtures/mock/photo-jwt.key.pem', '--pkce', '--scope', 'photo'];
const header = (jwt: string | null | undefined) => (jwt ? decodeJwtUnverified(jwt)?.header : undefined) ?? (jwt ? JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) : {});
const claims = (jwt: string | null | undefined) => (jwt ? JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) : {}) as Record<string, unknown>;

/** The weakened servers: each accepts one kind of bad JWT (tokens for an assertion, a code for a request object). */
const assertion = (req: SeenRequest) => (req.url.pathname === '/token' ? form(req).get('client_assertion') : undefined);
const requestObject = (req: SeenRequest) => (req.url.pathname === '/authorize' ? req.url.searchParams.get('request') : undefined);
const acceptAssertion = (bad: (jwt: string) => boolean) => ({ answer: (req: SeenRequest) => (assertion(req) && bad(assertion(req)!) ? tokens() : undefined) });
const acceptRequestObject = (bad: (jwt: string) => boolean) => ({ answer: (req: SeenRequest) => (requestObject(req) && bad(requestObject(req)!) ? codeRedirect(req) : undefined) });
const flipped = (jwt: string) => header(jwt).alg === 'ES256' && !header(jwt).jwk && !header(jwt).crit;

const CASES: [string, ReturnType<typeof acceptAssertion>, 'fail' | 'warn'][] = [
  ['client-assertion-alg-none', acceptAssertion((j) => header(j).alg === 'none'), 'fail'],
  ['client-assertion-hs256-public-key', acceptAssertion((j) => header(j).alg === 'HS256' && header(j).kid !== '../../../../../../../dev/null'), 'fail'],
  // Every ES256 assertion without tricks: the broken signature is among them.
  ['client-assertion-bad-signature', acceptAssertion(flipped), 'fail'],
  ['client-assertion-jwk-header', acceptAssertion((j) => header(j).jwk !== undefined), 'fail'],
  ['client-assertion-kid-injection', acceptAssertion((j) => String(header(j).kid).includes('dev/null')), 'fail'],
  ['client-assertion-crit', acceptAssertion((j) => header(j).crit !== undefined), 'fail'],
  ['client-assertion-no-exp', acceptAssertion((j) => claims(j).exp === undefined), 'fail'],
  ['client-assertion-nbf-future', acceptAssertion((j) => Number(claims(j).nbf) > Date.now() / 1000), 'fail'],
  ['client-assertion-far-exp', acceptAssertion((j) => Number(claims(j).exp) > Date.now() / 1000 + 86400), 'warn'],
  ['client-assertion-wrong-issuer', acceptAssertion((j) => claims(j).iss !== claims(j).sub), 'fail'],
  ['request-object-bad-signature', acceptRequestObject(flipped), 'fail'],
  ['request-object-hs256-public-key', acceptRequestObject((j) => header(j).alg === 'HS256'), 'fail'],
  ['request-object-jwk-header', acceptRequestObject((j) => header(j).jwk !== undefined), 'fail'],
  ['request-object-crit', acceptRequestObject((j) => header(j).crit !== undefined), 'fail'],
  ['request-object-expired', acceptRequestObject((j) => Number(claims(j).exp) < Date.now() / 1000), 'fail'],
];

describe('JWT handling: the server refuses forged and out-of-date client JWTs', () => {
  it('the mock refuses every one (private_key_jwt client with a request object key)', async () => {
    server.weakness = {};
    const { report, code } = await auditJson(server.url, ...JWT_CLIENT, '--only', 'flow,jwt');
    expect(Object.entries(statusesOf(report)).filter(([, s]) => s !== 'pass')).toEqual([]);
    // client-assertion-expired and jar-unsigned (which run first) are in the category too.
    expect(JWT_PROBES.map((p) => p.id)).toEqual(expect.arrayContaining(['client-assertion-expired', 'jar-unsigned']));
    expect(report.probes.map((p) => p.id)).toEqual(['flow', ...JWT_PROBES.map((p) => p.id)]);
    expect(code).toBe(0);
  });

  it('a public client (no JWT of its own) skips them, saying why', async () => {
    server.weakness = {};
    const { report } = await auditJson(server.url, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--only', 'jwt');
    // Those that run first (jar-unsigned, client-assertion-expired) are tested in test/audit/secured-weak.test.ts.
    const forged = JWT_PROBES.filter((j) => !RUN_FIRST.includes(j.id));
    expect(new Set(report.probes.filter((p) => forged.some((j) => j.id === p.id)).map((p) => p.status))).toEqual(new Set(['skip']));
    expect(report.summary.not_tested.map((n) => n.why)).toEqual([
      expect.stringMatching(/^the client authenticates with none; give --auth-method private_key_jwt/),
      'request objects are signed with the client key: give --signing-key FILE',
    ]);
  });

  it.each(CASES)('%s: a server that accepts it is caught', async (id, weakness, expected) => {
    server.weakness = weakness;
    const { byId } = await auditJson(server.url, ...JWT_CLIENT, '--only', id);
    expect(byId[id]?.status, byId[id]?.detail).toBe(expected);
    expect(byId[id]?.detail).toMatch(/^accepted: /);
  });
});
