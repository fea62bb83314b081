import { describe, expect, it } from 'vitest';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { adminRequest, authorizeUrl, getRedirect, pkceRequest, pkceTokens, postForm, startMock } from '../helpers.js';

describe('POST /_mock/next {"endpoint"}: faults, applied before the endpoint runs', () => {
  it('times=2: the next two token requests get 503 temporarily_unavailable, the third succeeds', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    expect((await adminRequest(server, 'next', { endpoint: 'token', status: 503, times: 2 })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code: 'x', client_id: 'photo-cli' });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: 'queued by the admin API (POST /_mock/next)' });
    }
    expect((await pkceTokens(server)).access_token).toBeTruthy();
    const log = (await adminRequest(server, 'requests')).body.requests as Record<string, unknown>[];
    const faulted = log.filter((r) => r.fault !== undefined);
    expect(faulted).toHaveLength(2);
    // The form is in the log though the endpoint did not run.
    expect(faulted[0]).toMatchObject({ path: '/token', status: 503, outcome: 'queued fault', fault: '503', form: { grant_type: 'authorization_code', code: 'x' } });
  });

  it('an OAuth error with its description; invalid_client is 401 with a Basic challenge', async () => {
    const server = await startMock();
    await adminRequest(server, 'next', { endpoint: 'token', error: 'invalid_client', error_description: 'client disabled' });
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: 'r' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: 'client disabled' });
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
  });

  it('at the API: a Bearer challenge with the queued error (RFC 6750 section 3)', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const token = String((await pkceTokens(server)).access_token);
    await adminRequest(server, 'next', { endpoint: 'api', error: 'invalid_token', error_description: 'revoked by the test' });
    const res = await fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="oauthctl-mock", error="invalid_token", error_description="revoked by the test"');
    expect((await fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('at authorize: an error without a status goes back to the client as an error redirect with state and iss', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    await adminRequest(server, 'next', { endpoint: 'authorize', error: 'temporarily_unavailable' });
    const { status, location } = await getRedirect(authorizeUrl(server, pkceRequest(createPkcePair())));
    expect(status).toBe(302);
    expect(Object.fromEntries(location!.searchParams)).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'queued by the admin API (POST /_mock/next)',
      state: 'state-123',
      iss: server.issuer,
    });
  });

  it('at authorize: with a status, an error page', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    await adminRequest(server, 'next', { endpoint: 'authorize', status: 500, error_description: 'down for <maintenance>' });
    const res = await fetch(authorizeUrl(server, pkceRequest(createPkcePair())), { redirect: 'manual' });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain('server_error: down for &#60;maintenance&#62;');
  });

  it('delay_ms: the endpoint answers as usual, later; the log shows the delay', async () => {
    const server = await startMock();
    await adminRequest(server, 'next', { endpoint: 'jwks', delay_ms: 300 });
    const slow = fetch(`${server.authUrl}/jwks`);
    // A request that comes meanwhile at another endpoint is not held up by it.
    const meta = await fetch(`${server.authUrl}/.well-known/openid-configuration`);
    expect(meta.status).toBe(200);
    const res = await slow;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { keys: unknown[] }).keys).toHaveLength(1);
    const log = (await adminRequest(server, 'requests')).body.requests as Record<string, unknown>[];
    expect(log.map((r) => r.path)).toEqual(['/.well-known/openid-configuration', '/jwks']);
    expect(log[1]).toMatchObject({ fault: 'after 300 ms', status: 200 });
    expect(Number(log[1]!.duration_ms)).toBeGreaterThanOrEqual(295);
  });

  it('a delay with a status: waits, then fails; a client that gives up is not answered', async () => {
    const server = await startMock();
    await adminRequest(server, 'next', { endpoint: 'userinfo', status: 502, delay_ms: 200 });
    const res = await fetch(`${server.authUrl}/userinfo`);
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: 'server_error' });
    await adminRequest(server, 'next', { endpoint: 'jwks', status: 500, delay_ms: 60_000 });
    const aborted = new AbortController();
    const gone = fetch(`${server.authUrl}/jwks`, { signal: aborted.signal });
    setTimeout(() => aborted.abort(), 100);
    await expect(gone).rejects.toThrow();
    let log: Record<string, unknown>[] = [];
    while (!log.some((r) => r.path === '/jwks')) log = (await adminRequest(server, 'requests')).body.requests as Record<string, unknown>[];
    expect(log.find((r) => r.path === '/jwks')).toMatchObject({ outcome: 'client went away', fault: '500 after 60000 ms' });
    // The fault was used up by the request that went away; the next one is answered at once.
    expect((await fetch(`${server.authUrl}/jwks`)).status).toBe(200);
  });

  it('faults queue in order per endpoint, each for its own endpoint', async () => {
    const server = await startMock();
    await adminRequest(server, 'next', { endpoint: 'jwks', status: 500 });
    await adminRequest(server, 'next', { endpoint: 'jwks', status: 503 });
    await adminRequest(server, 'next', { endpoint: 'metadata', status: 404, error: 'not_found' });
    expect((await fetch(`${server.authUrl}/jwks`)).status).toBe(500);
    expect((await fetch(`${server.authUrl}/.well-known/oauth-authorization-server`)).status).toBe(404);
    expect((await fetch(`${server.authUrl}/jwks`)).status).toBe(503);
    expect((await fetch(`${server.authUrl}/jwks`)).status).toBe(200);
  });
});
