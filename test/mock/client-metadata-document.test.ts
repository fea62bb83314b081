import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPkcePair } from '../../src/oauth/pkce.js';
import type { MockServer } from '../../src/mock/index.js';
import { authorizeUrl, getRedirect, pkceRequest, postForm, REDIRECT_URI, startMock } from './helpers.js';
import { assertionClaims, JWT_BEARER, newKey, signedJwt } from './modern-helpers.js';

const hosts: Server[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A loopback host of client metadata documents; `answer` writes the response for each path, and counts the fetches. */
async function documentHost(answer: (path: string, url: string, res: ServerResponse) => void): Promise<{ base: string; fetches: string[] }> {
  const fetches: string[] = [];
  const server = createServer((req, res) => {
    fetches.push(req.url ?? '');
    answer(req.url ?? '', `http://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`, res);
  });
  hosts.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, fetches };
}

const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const doc = (url: string, extra: Record<string, unknown> = {}) => ({ client_id: url, client_name: 'Doc Client', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', ...extra });
const start = () => startMock({ client_id_metadata_documents: { allow_http_loopback: true } }, { autoLogin: 'alice' });

async function authorize(server: MockServer, clientId: string) {
  const pkce = createPkcePair();
  const r = await getRedirect(authorizeUrl(server, pkceRequest(pkce, { client_id: clientId })));
  return { ...r, pkce, text: r.location ? '' : await r.response.text() };
}

describe('Client ID Metadata Documents', () => {
  it('a document URL is a client id: fetched, validated, then the code flow works like a registered public client', async () => {
    const server = await start();
    const meta = (await (await fetch(`${server.authUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta.client_id_metadata_document_supported).toBe(true);
    const host = await documentHost((_path, url, res) => json(res, doc(url), { 'cache-control': 'max-age=300' }));
    const clientId = `${host.base}/client.json`;
    const { location, pkce } = await authorize(server, clientId);
    const code = location!.searchParams.get('code')!;
    const { status, body } = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: pkce.codeVerifier });
    expect(status).toBe(200);
    expect(typeof body.access_token).toBe('string');
    // max-age=300: the second authorization request uses the cached document.
    await authorize(server, clientId);
    expect(host.fetches).toHaveLength(1);
  });

  it('a document with jwks makes a private_key_jwt client: its assertion is checked with those keys', async () => {
    const server = await start();
    const key = await newKey();
    const host = await documentHost((_p, url, res) => json(res, doc(url, { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ ...key.publicJwk, kid: 'k1' }] } })));
    const clientId = `${host.base}/jwt-client.json`;
    const redeem = async (signingKey: typeof key) => {
      const { location, pkce } = await authorize(server, clientId);
      const assertion = await signedJwt(assertionClaims(clientId, server.issuer), signingKey.privateKey, { alg: 'ES256', kid: 'k1' });
      return postForm(`${server.authUrl}/token`, {
        grant_type: 'authorization_code',
        code: location!.searchParams.get('code')!,
        redirect_uri: REDIRECT_URI,
        code_verifier: pkce.codeVerifier,
        client_assertion_type: JWT_BEARER,
        client_assertion: assertion,
      });
    };
    expect((await redeem(key)).status).toBe(200);
    expect((await redeem(await newKey())).status).toBe(401);
  });

  it('a pushed authorization request (RFC 9126) names a document client too; a bad document is invalid_client', async () => {
    const server = await start();
    const host = await documentHost((path, url, res) => json(res, path === '/bad' ? doc('https://someone.else/c') : doc(url)));
    const pkce = createPkcePair();
    const push = (clientId: string) =>
      postForm(`${server.authUrl}/par`, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        state: 's1',
        scope: 'photo',
        code_challenge: pkce.codeChallenge,
        code_challenge_method: 'S256',
      });
    const pushed = await push(`${host.base}/ok`);
    expect(pushed.status).toBe(201);
    expect(typeof pushed.body.request_uri).toBe('string');
    const bad = await push(`${host.base}/bad`);
    expect([bad.status, bad.body.error]).toEqual([401, 'invalid_client']);
  });

  it('Cache-Control no-store: fetched again each time; concurrent requests share one fetch', async () => {
    const server = await start();
    const host = await documentHost((_p, url, res) => setTimeout(() => json(res, doc(url), { 'cache-control': 'no-store' }), 100));
    const clientId = `${host.base}/c`;
    await Promise.all(Array.from({ length: 10 }, () => authorize(server, clientId)));
    expect(host.fetches).toHaveLength(1);
    await authorize(server, clientId);
    expect(host.fetches).toHaveLength(2);
  });

  it('hostile documents are refused with an error page, never a redirect', async () => {
    const server = await start();
    const host = await documentHost((path, url, res) => {
      if (path === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/' });
        return res.end();
      }
      if (path === '/huge') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(doc(url, { pad: 'x'.repeat(10 * 1024 * 1024) })));
      }
      if (path === '/huge-chunked') {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 100; i++) res.write('x'.repeat(100 * 1024));
        return res.end();
      }
      if (path === '/other-id') return json(res, doc('https://legit.example/client.json'));
      if (path === '/secret') return json(res, doc(url, { client_secret: 's' }));
      if (path === '/bad-redirect') return json(res, doc(url, { redirect_uris: ['http://evil.example/cb'] }));
      if (path === '/slow') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
        return setTimeout(() => res.end('}'), 5000).unref();
      }
      res.writeHead(404).end();
    });
    const cases: [string, RegExp][] = [
      ['/redirect', /HTTP 302: redirects are not followed/],
      ['/huge', /larger than 5120 bytes/],
      ['/huge-chunked', /larger than 5120 bytes/],
      ['/other-id', /not its own URL/],
      ['/secret', /holds a client_secret/],
      ['/bad-redirect', /invalid_redirect_uri/],
      ['/slow', /took longer than 3000 ms/],
    ];
    for (const [path, reason] of cases) {
      const r = await authorize(server, `${host.base}${path}`);
      expect(r.status, path).toBe(400);
      expect(r.location).toBeUndefined();
      expect(r.text).toMatch(reason);
    }
    expect(host.fetches).not.toContain('/latest');
  }, 20_000);

  it('a document nested deeper than 100 levels is refused with that reason, at /authorize and at /par; 100 levels pass', async () => {
    const server = await start();
    const nested = (levels: number): unknown => (levels === 0 ? 1 : [nested(levels - 1)]);
    // The document's object is the first level: 99 arrays inside it make 100, 100 make 101.
    const host = await documentHost((path, url, res) => json(res, doc(url, { software_statement_extra: nested(path === '/deep' ? 100 : 99) })));
    const deep = await authorize(server, `${host.base}/deep`);
    expect([deep.status, deep.location]).toEqual([400, undefined]);
    expect(deep.text).toContain('is nested more than 100 levels deep: refused');
    const pushed = await postForm(`${server.authUrl}/par`, { ...pkceRequest(createPkcePair(), { client_id: `${host.base}/deep` }) });
    expect(pushed.status).toBe(401);
    expect(pushed.body).toMatchObject({
      error: 'invalid_client',
      error_description: expect.stringMatching(/^the client ID metadata document is nested more than 100 levels deep: refused/) as unknown,
    });
    const fine = await authorize(server, `${host.base}/fine`);
    expect(fine.location?.searchParams.has('code')).toBe(true);
  });

  it('an http document is refused unless the configuration allows loopback http', async () => {
    const server = await startMock({}, { autoLogin: 'alice' });
    const host = await documentHost((_p, url, res) => json(res, doc(url)));
    const r = await authorize(server, `${host.base}/c`);
    expect(r.status).toBe(400);
    expect(r.text).toContain('is not a registered client');
    expect(host.fetches).toHaveLength(0);
  });
});
