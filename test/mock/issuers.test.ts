import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';
import { MockConfigError, type MockConfigInput, type MockLogEntry } from '../../src/mock/index.js';
import { createPkcePair } from '../../src/oauth/pkce.js';
import { BIN, cliEnv, ROOT } from '../helpers/cli.js';
import { getCode, pkceRequest, postForm, REDIRECT_URI, startMock } from './helpers.js';

const json = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const TENANTS: MockConfigInput = {
  issuers: {
    'tenant-a': { users: [{ username: 'ann', password: 'a-pass' }], clients: [{ client_id: 'app-a', redirect_uris: [REDIRECT_URI] }] },
    'tenant-b': { users: [{ username: 'ann', password: 'b-pass' }], clients: [{ client_id: 'app-b', client_secret: 'b-secret', redirect_uris: [REDIRECT_URI] }] },
  },
};

describe('--issuer-url: the issuer behind a proxy or in a container', () => {
  it('is the issuer of the metadata, the redirect and the tokens', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice', issuerUrl: 'http://mock:9000/' });
    expect(server.issuer).toBe('http://mock:9000');
    expect(server.baseUrl).toBe('http://mock:9000/api');
    const local = `http://127.0.0.1:${server.port}`;
    const meta = await json(`${local}/.well-known/openid-configuration`);
    expect(meta.body).toMatchObject({ issuer: 'http://mock:9000', token_endpoint: 'http://mock:9000/token', jwks_uri: 'http://mock:9000/jwks' });
    const pkce = createPkcePair();
    const url = new URL(`${local}/authorize`);
    for (const [k, v] of Object.entries(pkceRequest(pkce))) url.searchParams.set(k, v!);
    const redirect = await fetch(url, { redirect: 'manual' });
    const location = new URL(redirect.headers.get('location')!);
    expect(location.searchParams.get('iss')).toBe('http://mock:9000');
    const tokens = await postForm(`${local}/token`, {
      grant_type: 'authorization_code',
      code: location.searchParams.get('code')!,
      redirect_uri: REDIRECT_URI,
      client_id: 'photo-cli',
      code_verifier: pkce.codeVerifier,
    });
    expect(decodeJwt(String(tokens.body.access_token))).toMatchObject({ iss: 'http://mock:9000', aud: 'http://mock:9000/api' });
    const me = await fetch(`${local}/api/me`, { headers: { authorization: `Bearer ${String(tokens.body.access_token)}` } });
    expect(me.status).toBe(200);
  });

  it('refuses what cannot be an issuer, naming it', async () => {
    for (const bad of ['mock:9000', 'ftp://mock', 'http://mock/?x=1', 'http://user:pw@mock', 'http://mock/#f']) {
      await expect(startMock(undefined, { issuerUrl: bad })).rejects.toThrow(MockConfigError);
    }
  });

  it('serve-mock --issuer-url announces the public URL in its --json line and metadata (tests stay on loopback)', async () => {
    const child = spawn(process.execPath, [BIN, 'serve-mock', '--host', '127.0.0.1', '--port', '0', '--json', '--quiet', '--issuer-url', 'http://mock:9000'], {
      cwd: ROOT,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const announced = JSON.parse(line) as Record<string, string>;
      expect(announced).toEqual({ issuer: 'http://mock:9000', auth_url: 'http://mock:9000', base_url: 'http://mock:9000/api' });
    } finally {
      child.kill('SIGTERM');
      await once(child, 'close');
    }
  });

  it('serve-mock --issuer-url with a bad URL exits 2 with one line', async () => {
    const child = spawn(process.execPath, [BIN, 'serve-mock', '--port', '0', '--issuer-url', 'mock:9000'], { cwd: ROOT, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const [code] = (await once(child, 'close')) as [number];
    expect(code).toBe(2);
    expect(stderr).toMatch(/--issuer-url mock:9000: must be an http or https URL/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe('several issuers in one process, by path (config issuers)', () => {
  it('each issuer has its own metadata (RFC 8414 path-inserted and OpenID appended), keys, clients and users', async () => {
    const server = await startMock(TENANTS);
    expect([...server.issuers.keys()]).toEqual(['tenant-a', 'tenant-b']);
    const a = server.issuers.get('tenant-a')!;
    expect(a.issuer).toBe(`${server.issuer}/tenant-a`);
    const inserted = await json(`${server.issuer}/.well-known/oauth-authorization-server/tenant-a`);
    const appended = await json(`${a.issuer}/.well-known/openid-configuration`);
    expect(inserted.body).toEqual(appended.body);
    expect(inserted.body).toMatchObject({ issuer: a.issuer, authorization_endpoint: `${a.issuer}/authorize`, jwks_uri: `${a.issuer}/jwks` });
    const root = await json(`${server.issuer}/.well-known/oauth-authorization-server`);
    expect(root.body.issuer).toBe(server.issuer);
    const jwksA = (await json(`${a.issuer}/jwks`)).body as unknown as JSONWebKeySet;
    const jwksB = (await json(`${server.issuers.get('tenant-b')!.issuer}/jwks`)).body as unknown as JSONWebKeySet;
    expect(jwksA.keys[0]!.kid).not.toBe(jwksB.keys[0]!.kid);
    // A client of one issuer is unknown to the others.
    const other = await fetch(`${a.issuer}/authorize?client_id=app-b&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`);
    expect(other.status).toBe(400);
    expect(await other.text()).toMatch(/is not a registered client/);
    expect((await fetch(`${server.issuer}/tenant-c/.well-known/openid-configuration`)).status).toBe(404);
    expect((await fetch(`${server.issuer}/.well-known/oauth-authorization-server/tenant-c`)).status).toBe(404);
  });

  it('a flow at a named issuer: its own login, iss, and tokens that only its keys verify', async () => {
    const entries: MockLogEntry[] = [];
    const server = await startMock(TENANTS, { autoLogin: 'ann', log: (e) => entries.push(e) });
    const b = server.issuers.get('tenant-b')!;
    const pkce = createPkcePair();
    const code = await getCode(b, pkceRequest(pkce, { client_id: 'app-b', scope: 'openid photo' }));
    const res = await postForm(`${b.authUrl}/token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: 'app-b',
      client_secret: 'b-secret',
      code_verifier: pkce.codeVerifier,
    });
    expect(res.status).toBe(200);
    const jwks = createLocalJWKSet((await json(`${b.issuer}/jwks`)).body as unknown as JSONWebKeySet);
    const { payload } = await jwtVerify(String(res.body.access_token), jwks, { issuer: b.issuer, audience: b.baseUrl });
    expect(payload.sub).toBe('ann');
    const rootKeys = createLocalJWKSet((await json(`${server.issuer}/jwks`)).body as unknown as JSONWebKeySet);
    await expect(jwtVerify(String(res.body.access_token), rootKeys)).rejects.toThrow();
    const photos = await fetch(`${b.baseUrl}/photos`, { headers: { authorization: `Bearer ${String(res.body.access_token)}` } });
    expect(photos.status).toBe(200);
    // Another issuer's API does not take it.
    const elsewhere = await fetch(`${server.issuers.get('tenant-a')!.baseUrl}/photos`, { headers: { authorization: `Bearer ${String(res.body.access_token)}` } });
    expect(elsewhere.status).toBe(401);
    expect(entries.some((e) => e.path === '/tenant-b/token' && e.status === 200)).toBe(true);
  });

  it('names and issuer configurations are validated, naming the field', async () => {
    await expect(startMock({ issuers: { 'a/b': {} } })).rejects.toThrow(/issuers\.a\/b: the name must be one path segment/);
    await expect(startMock({ issuers: { t: { clients: [{ client_id: 'x', redirect_uris: ['nope'] }] } } })).rejects.toThrow(/issuers\.t\.clients\[0\]\.redirect_uris\[0\]: must be an absolute URL/);
    await expect(startMock({ issuers: { t: { issuers: {} } as MockConfigInput } })).rejects.toThrow(/issuers\.t\.issuers: unknown field/);
  });

  it('serve-mock --json adds "issuers" to its line', async () => {
    const child = spawn(process.execPath, [BIN, 'serve-mock', '--port', '0', '--json', '--quiet', '--config', 'fixtures/mock/example.jsonc'], {
      cwd: ROOT,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const announced = JSON.parse(line) as { issuer: string; issuers: Record<string, Record<string, string>> };
      expect(Object.keys(announced)).toEqual(['issuer', 'auth_url', 'base_url', 'issuers']);
      const [name, first] = Object.entries(announced.issuers)[0]!;
      expect(first).toEqual({ issuer: `${announced.issuer}/${name}`, auth_url: `${announced.issuer}/${name}`, base_url: `${announced.issuer}/${name}/api` });
      expect((await json(`${announced.issuer}/.well-known/oauth-authorization-server/${name}`)).body.issuer).toBe(first.issuer);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'close');
    }
  });
});
