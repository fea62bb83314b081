import { describe, expect, it } from 'vitest';
import { createPkcePair } from '../../src/oauth/pkce.js';
import type { MockConfigInput, MockServer } from '../../src/mock/index.js';
import { authorizeUrl, basic, getRedirect, pkceRequest, postForm, REDIRECT_URI, startMock } from './helpers.js';
import { dpopProof, modernClient, newKey } from './modern-helpers.js';

const parUrl = (s: MockServer) => `${s.authUrl}/par`;
const WEB = { Authorization: basic('photo-web', 'photo-web-secret') };

async function push(server: MockServer, overrides: Record<string, string | undefined> = {}, headers: Record<string, string> = WEB) {
  const pkce = createPkcePair();
  return postForm(parUrl(server), { ...pkceRequest(pkce, { client_id: 'photo-web' }), ...overrides }, headers);
}

const start = (config?: MockConfigInput, now?: () => number) => startMock(config, { autoLogin: 'alice', ...(now ? { now } : {}) });

describe('the PAR endpoint (RFC 9126)', () => {
  it('answers 201 with a request_uri for 60 s; /authorize with client_id and request_uri issues the code', async () => {
    const server = await start();
    const r = await push(server);
    expect(r.status).toBe(201);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body.expires_in).toBe(60);
    expect(String(r.body.request_uri)).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
    const { status, location } = await getRedirect(authorizeUrl(server, { client_id: 'photo-web', request_uri: String(r.body.request_uri) }));
    expect(status).toBe(302);
    expect(location?.searchParams.get('code')).toBeTruthy();
    expect(location?.searchParams.get('state')).toBe('state-123');
    expect(location?.origin + location!.pathname).toBe(REDIRECT_URI);
  });

  it('a request_uri is used once', async () => {
    const server = await start();
    const uri = String((await push(server)).body.request_uri);
    expect((await getRedirect(authorizeUrl(server, { client_id: 'photo-web', request_uri: uri }))).status).toBe(302);
    const again = await getRedirect(authorizeUrl(server, { client_id: 'photo-web', request_uri: uri }));
    expect(again.status).toBe(400);
    expect(await again.response.text()).toMatch(/already used or expired/);
  });

  it('a request_uri expires after 60 s (the mock clock)', async () => {
    let now = Date.now();
    const server = await start(undefined, () => now);
    const uri = String((await push(server)).body.request_uri);
    now += 61_000;
    const late = await getRedirect(authorizeUrl(server, { client_id: 'photo-web', request_uri: uri }));
    expect(late.status).toBe(400);
  });

  it("refuses another client's request_uri, and one that was never issued", async () => {
    const server = await start();
    const uri = String((await push(server)).body.request_uri);
    const other = await getRedirect(authorizeUrl(server, { client_id: 'photo-cli', request_uri: uri }));
    expect(other.status).toBe(400);
    expect(other.location).toBeUndefined();
    expect(await other.response.text()).toMatch(/another client/);
    // The rightful client can still use it.
    expect((await getRedirect(authorizeUrl(server, { client_id: 'photo-web', request_uri: uri }))).status).toBe(302);
    const forged = await getRedirect(authorizeUrl(server, { client_id: 'photo-web', request_uri: 'urn:ietf:params:oauth:request_uri:forged' }));
    expect(forged.status).toBe(400);
  });

  it('refuses request and request_uri together at /authorize', async () => {
    const server = await start();
    const uri = String((await push(server)).body.request_uri);
    const both = await getRedirect(authorizeUrl(server, { client_id: 'photo-web', request_uri: uri, request: 'eyJhbGciOiJub25lIn0.e30.' }));
    expect(both.status).toBe(400);
    expect(both.location).toBeUndefined();
  });

  it('authenticates the client as the token endpoint does', async () => {
    const server = await start();
    const wrong = await push(server, {}, { Authorization: basic('photo-web', 'wrong') });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const publicClient = await push(server, { client_id: 'photo-cli' }, {});
    expect(publicClient.status).toBe(201);
  });

  it.each<[string, Record<string, string | undefined>, string]>([
    ['a request_uri in the push', { request_uri: 'urn:ietf:params:oauth:request_uri:x' }, 'invalid_request'],
    ['an unregistered redirect_uri', { redirect_uri: 'https://evil.example/cb' }, 'invalid_request'],
    ['an unknown scope', { scope: 'admin' }, 'invalid_scope'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['another client_id than the authenticated one', { client_id: 'photo-cli' }, 'invalid_request'],
    ['an unknown resource', { resource: 'https://unknown.example/' }, 'invalid_target'],
  ])('checks the pushed parameters as /authorize does: %s', async (_name, overrides, error) => {
    const server = await start();
    const r = await push(server, overrides);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(error);
  });

  it('with DPoP: the proof key becomes the dpop_jkt of the request (RFC 9449 section 10.1)', async () => {
    const server = await start();
    const key = await newKey();
    const pkce = createPkcePair();
    const pushed = await postForm(parUrl(server), pkceRequest(pkce), { DPoP: await dpopProof(key, { htu: parUrl(server) }) });
    expect(pushed.status).toBe(201);
    const { location } = await getRedirect(authorizeUrl(server, { client_id: 'photo-cli', request_uri: String(pushed.body.request_uri) }));
    const form = { grant_type: 'authorization_code', code: location!.searchParams.get('code')!, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier };
    const other = await postForm(`${server.authUrl}/token`, form, { DPoP: await dpopProof(await newKey(), { htu: `${server.authUrl}/token` }) });
    expect(other.body.error).toBe('invalid_grant');
    const mismatch = await postForm(parUrl(server), { ...pkceRequest(createPkcePair()), dpop_jkt: (await newKey()).jkt }, { DPoP: await dpopProof(key, { htu: parUrl(server) }) });
    expect(mismatch.body.error).toBe('invalid_dpop_proof');
  });
});

describe('require_pushed_authorization_requests', () => {
  it('per client: a plain /authorize request is refused, a pushed one goes', async () => {
    const server = await start({ clients: [modernClient('photo-par', { client_secret: 'par-secret', require_pushed_authorization_requests: true })] });
    const pkce = createPkcePair();
    const plain = await getRedirect(authorizeUrl(server, pkceRequest(pkce, { client_id: 'photo-par' })));
    expect(plain.location?.searchParams.get('error')).toBe('invalid_request');
    expect(plain.location?.searchParams.get('error_description')).toMatch(/PAR/);
    const meta = (await (await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta.require_pushed_authorization_requests).toBe(false);
    const pushed = await postForm(parUrl(server), pkceRequest(pkce, { client_id: 'photo-par' }), { Authorization: basic('photo-par', 'par-secret') });
    expect((await getRedirect(authorizeUrl(server, { client_id: 'photo-par', request_uri: String(pushed.body.request_uri) }))).status).toBe(302);
  });

  it('for every client: the metadata says so', async () => {
    const server = await start({ require_pushed_authorization_requests: true });
    const meta = (await (await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta.require_pushed_authorization_requests).toBe(true);
    expect(meta.pushed_authorization_request_endpoint).toBe(`${server.issuer}/par`);
    const plain = await getRedirect(authorizeUrl(server, pkceRequest(createPkcePair())));
    expect(plain.location?.searchParams.get('error')).toBe('invalid_request');
  });
});

describe('the pushed-request store (bounded, as the other stores)', () => {
  it('when full refuses a new push with 503 and Retry-After, and keeps what it holds usable', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice', limits: { pushedRequests: 2 } });
    const held = [String((await push(server)).body.request_uri), String((await push(server)).body.request_uri)];
    const third = await push(server);
    expect(third.status).toBe(503);
    expect(third.body.error).toBe('temporarily_unavailable');
    expect(third.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    for (const uri of held) expect((await getRedirect(authorizeUrl(server, { client_id: 'photo-web', request_uri: uri }))).status).toBe(302);
  });

  it("the admin API's reset forgets pushed requests (and makes room)", async () => {
    const server = await startMock(undefined, { autoLogin: 'alice', limits: { pushedRequests: 1 } });
    const uri = String((await push(server)).body.request_uri);
    expect((await push(server)).status).toBe(503);
    server.reset();
    const after = await getRedirect(authorizeUrl(server, { client_id: 'photo-web', request_uri: uri }));
    expect(after.status).toBe(400);
    expect((await push(server)).status).toBe(201);
  });
});

describe('a queued authorize fault (admin API) and PAR', () => {
  it('goes back to the redirect URI of the pushed request, with its state', async () => {
    const server = await start();
    const uri = String((await push(server)).body.request_uri);
    server.enqueue({ endpoint: 'authorize', error: 'access_denied' });
    const { status, location } = await getRedirect(authorizeUrl(server, { client_id: 'photo-web', request_uri: uri }));
    expect(status).toBe(302);
    expect(location?.origin + location!.pathname).toBe(REDIRECT_URI);
    expect(location?.searchParams.get('error')).toBe('access_denied');
    expect(location?.searchParams.get('state')).toBe('state-123');
  });
});
