// userinfo with a DPoP-bound login (RFC 9449 section 7.1), against the mock of fixtures/mock/modern.jsonc
// (client photo-dpop), in-process: the cached key proves the token as `call` does; --dpop-key gives it for
// --token; a refusal says what the WWW-Authenticate challenge asks for.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/program/main.js';
import type { MockServer } from '../../../src/mock/index.js';
import { memoryIO } from '../../helpers/io.js';
import { header, HEADLESS, jwt, requestsAt, sha256, startModernMock } from '../../client/helpers/modern-mock.js';
import { homeEnv } from '../../helpers/cli.js';

let mock: MockServer;
let home: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  mock = await startModernMock();
  home = mkdtempSync(join(tmpdir(), 'oauthctl-userinfo-dpop-'));
  env = { ...homeEnv(home), NO_COLOR: '1', PATH: process.env.PATH ?? '' };
});
afterAll(async () => {
  await mock.close();
  rmSync(home, { recursive: true, force: true });
});

async function cli(args: string[]) {
  const io = memoryIO(env);
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

const DPOP_CLIENT = ['--issuer', () => mock.issuer, '--client-id', 'photo-dpop'] as const;
const client = () => DPOP_CLIENT.map((a) => (typeof a === 'function' ? a() : a));

describe('userinfo with a DPoP-bound login', () => {
  let accessToken = '';
  it('the cached login: Authorization: DPoP with a proof of the cached key, carrying ath', async () => {
    const login = await cli(['login', ...client(), '--dpop', '--scope', 'openid profile', ...HEADLESS, '--json', '--quiet']);
    expect(login.code, login.err).toBe(0);
    accessToken = (JSON.parse(login.out) as { access_token: string }).access_token;
    mock.clearRequests();
    const userinfo = await cli(['userinfo', ...client(), '--json']);
    expect(userinfo.code, userinfo.err).toBe(0);
    expect(JSON.parse(userinfo.out)).toMatchObject({ sub: expect.any(String) as unknown, name: expect.any(String) as unknown });
    const request = requestsAt(mock, '/userinfo')[0]!;
    expect(header(request, 'authorization')).toBe(`DPoP ${accessToken}`);
    const proof = jwt(header(request, 'dpop'));
    expect(proof.claims).toMatchObject({ htm: 'GET', htu: `${mock.issuer}/userinfo`, ath: sha256(accessToken) });
  });

  it('--token without its key: the 401 names the DPoP challenge and --dpop-key (exit 1)', async () => {
    const result = await cli(['userinfo', '--token', accessToken, '--issuer', mock.issuer]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/the userinfo endpoint answered HTTP 401 \(.*\)/);
    expect(result.err).toContain('it wants a DPoP-bound token sent as Authorization: DPoP with a proof; give --dpop-key FILE');
    expect(result.err).not.toContain('needs the openid scope');
  });

  it('--token with --dpop-key of another key: the proof is refused, and the hint says so', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const file = join(home, 'other-dpop.jwk');
    writeFileSync(file, JSON.stringify(await exportJWK(privateKey)), { mode: 0o600 });
    const result = await cli(['userinfo', '--token', accessToken, '--issuer', mock.issuer, '--dpop-key', file]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/the userinfo endpoint answered HTTP 401 \((invalid_token|invalid_dpop_proof)[^)]*\)/);
    expect(result.err).toMatch(/not the one the token is bound to|bound to another key|expired, revoked/);
  });

  it('a token without the openid scope: the hint names insufficient_scope, not the DPoP key', async () => {
    const login = await cli(['login', ...client(), '--dpop', '--scope', 'photo', ...HEADLESS, '--json', '--quiet']);
    expect(login.code, login.err).toBe(0);
    const result = await cli(['userinfo', ...client()]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/HTTP (401|403) \(insufficient_scope/);
    expect(result.err).toContain('the token lacks the scope the resource needs ("openid")');
  });
});
