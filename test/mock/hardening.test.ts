import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { formatLogEntry, type MockLogEntry, type MockServer } from '../../src/mock/index.js';
import { createPkcePair } from '../../src/oauth/pkce.js';
import { authorizeUrl, basic, Browser, formFields, getCode, pkceRequest, postForm, REDIRECT_URI, startMock } from './helpers.js';

/** Runs `task(i)` for i in 0..n-1 with at most `concurrency` at a time. */
async function flood<T>(n: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

async function codeFlow(server: MockServer, scope = 'photo offline_access'): Promise<{ code: string; tokens: Record<string, unknown>; form: Record<string, string> }> {
  const pkce = createPkcePair();
  const code = await getCode(server, pkceRequest(pkce, { scope }));
  const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier };
  const res = await postForm(`${server.authUrl}/token`, form);
  if (res.status !== 200) throw new Error(`token ${res.status} ${JSON.stringify(res.body)}`);
  return { code, tokens: res.body, form };
}

const me = (server: MockServer, token: unknown) => fetch(`${server.baseUrl}/me`, { headers: { authorization: `Bearer ${String(token)}` } });

describe('hostile load: a full store refuses new work and forgets no security state', () => {
  it('a code replayed after its store filled up is still "already used", and its tokens are revoked', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice', limits: { codes: 50 } });
    const first = await codeFlow(server);
    const statuses = await flood(60, 8, async () => (await fetch(authorizeUrl(server, pkceRequest(createPkcePair())), { redirect: 'manual' })).status);
    const refused = statuses.filter((s) => s === 503).length;
    expect(statuses.filter((s) => s === 302).length).toBe(49);
    expect(refused).toBe(11);
    const full = await fetch(authorizeUrl(server, pkceRequest(createPkcePair())), { redirect: 'manual' });
    expect(full.status).toBe(503);
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await full.json()).toMatchObject({ error: 'temporarily_unavailable' });

    const replay = await postForm(`${server.authUrl}/token`, first.form);
    expect(replay.status).toBe(400);
    expect(String(replay.body.error_description)).toMatch(/already used/);
    expect((await me(server, first.tokens.access_token)).status).toBe(401);
    const refresh = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: String(first.tokens.refresh_token), client_id: 'photo-cli' });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('after a flood of revocations every revoked token stays revoked; past the bound revocation is refused (503)', async () => {
    const server = await startMock({ signing_alg: 'ES256' }, { autoLogin: 'alice', limits: { revoked: 20 } });
    const tokens = await flood(25, 4, async () => (await codeFlow(server, 'photo')).tokens.access_token as string);
    const statuses = await flood(tokens.length, 4, async (i) => {
      const r = await postForm(`${server.authUrl}/revoke`, { token: tokens[i], client_id: 'photo-cli' });
      return r.status;
    });
    // A tenth of the store is kept for revocations that a reused code triggers.
    expect(statuses.filter((s) => s === 200).length).toBe(18);
    expect(statuses.filter((s) => s === 503).length).toBe(7);
    for (let i = 0; i < tokens.length; i++) expect((await me(server, tokens[i])).status).toBe(statuses[i] === 200 ? 401 : 200);
  });

  it('10,001 anonymous GET /authorize leave a signed-in session alone; the anonymous store is bounded', { timeout: 120_000 }, async () => {
    const server = await startMock({ signing_alg: 'ES256' });
    const browser = new Browser();
    const pkce = createPkcePair();
    const login = await browser.request(authorizeUrl(server, pkceRequest(pkce)));
    const signedIn = await browser.submit(`${server.authUrl}/login`, { ...formFields(await login.text()), username: 'alice', password: 'wonderland' });
    const consent = await browser.request(new URL(signedIn.headers.get('location')!, server.authUrl).href);
    const granted = await browser.submit(`${server.authUrl}/consent`, { ...formFields(await consent.text()), decision: 'allow' });
    expect(new URL(granted.headers.get('location')!).searchParams.get('code')).toBeTruthy();

    const statuses = await flood(10_001, 32, async () => {
      const r = await fetch(authorizeUrl(server, pkceRequest(createPkcePair())), { redirect: 'manual' });
      await r.arrayBuffer();
      return r.status;
    });
    expect(statuses.filter((s) => s === 200).length).toBe(10_000);
    expect(statuses.filter((s) => s === 503).length).toBe(1);

    const again = await browser.request(authorizeUrl(server, pkceRequest(createPkcePair())));
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  });

  it('family revocation reaches the access token of the code exchange after 1,001 rotations', { timeout: 120_000 }, async () => {
    const server = await startMock({ signing_alg: 'ES256' }, { autoLogin: 'alice' });
    const { tokens } = await codeFlow(server);
    let refreshToken = String(tokens.refresh_token);
    const firstRefresh = refreshToken;
    let latest = '';
    for (let i = 0; i < 1001; i++) {
      const r = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'photo-cli' });
      expect(r.status).toBe(200);
      refreshToken = String(r.body.refresh_token);
      latest = String(r.body.access_token);
    }
    expect((await me(server, tokens.access_token)).status).toBe(200);
    const reuse = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: firstRefresh, client_id: 'photo-cli' });
    expect(String(reuse.body.error_description)).toMatch(/already used/);
    expect((await me(server, tokens.access_token)).status).toBe(401);
    expect((await me(server, latest)).status).toBe(401);
    const live = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'photo-cli' });
    expect(live.body.error).toBe('invalid_grant');
  });
});

describe('what an expired opaque token leaves behind', () => {
  it('is kept past its expiry at most as long again as it lived, so short-lived tokens do not fill the store', async () => {
    let now = Date.now();
    const server = await startMock({ access_token_format: 'opaque', lifetimes: { access_token: 2 } }, { autoLogin: 'alice', now: () => now });
    const { tokens } = await codeFlow(server, 'photo');
    now += 3000;
    expect((await me(server, tokens.access_token)).headers.get('www-authenticate')).toMatch(/has expired/);
    now += 2000;
    expect((await me(server, tokens.access_token)).headers.get('www-authenticate')).toMatch(/is not valid/);
  });
});

describe('the request log', () => {
  it('a client_id with a newline and ESC cannot forge a log line', async () => {
    const entries: MockLogEntry[] = [];
    const server = await startMock(undefined, { log: (e) => entries.push(e) });
    const forged = 'x\n2026-01-01T00:00:00.000Z POST /token 200 client=photo-web tokens issued 1ms\x1b[2J';
    await postForm(`${server.authUrl}/token`, { grant_type: 'client_credentials' }, { authorization: basic(forged, 'guess') });
    await fetch(`${server.authUrl}/authorize?client_id=${encodeURIComponent(forged)}`);
    await new Promise((r) => setTimeout(r, 20));
    const lines = entries.map(formatLogEntry);
    expect(entries.filter((e) => e.client_id === forged)).toHaveLength(2);
    for (const line of lines) {
      expect(line).not.toMatch(/[\n\r\x1b]/);
      expect(line).toContain('client=x\\x0a2026-01-01T00:00:00.000Z POST /token 200 client=photo-web tokens issued 1ms\\x1b[2J');
    }
  });

  it('a client that disconnects mid-body is logged as that, not as a server error', async () => {
    const entries: MockLogEntry[] = [];
    const server = await startMock(undefined, { log: (e) => entries.push(e) });
    const req = request(`${server.authUrl}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '1000' } });
    req.on('error', () => undefined);
    req.write('grant_type=authorization_code&code=');
    await new Promise((r) => setTimeout(r, 50));
    req.destroy();
    for (let i = 0; i < 100 && entries.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ method: 'POST', path: '/token', status: 499, outcome: 'client disconnected before its request was complete' });
    expect(entries[0]!.error).toBeUndefined();
    expect(formatLogEntry(entries[0]!)).not.toMatch(/server_error|aborted/);
  });
});
