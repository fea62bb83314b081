import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterEach } from 'vitest';
import type { MockServer } from '../../../src/mock/index.js';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { authorizeUrl, Browser, formFields, pkceRequest, postForm, REDIRECT_URI } from '../helpers.js';

/** A relying party's own endpoints (back-channel, front-channel): records each request, answers as told. */
export interface RelyingParty {
  url: string;
  hits: { method: string; url: string; body: string }[];
  /** The statuses of the next answers (then 200). */
  answers: number[];
  delayMs: number;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

export async function startRelyingParty(): Promise<RelyingParty> {
  const rp: RelyingParty = { url: '', hits: [], answers: [], delayMs: 0 };
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      rp.hits.push({ method: req.method ?? '', url: req.url ?? '', body });
      const status = rp.answers.shift() ?? 200;
      setTimeout(() => {
        res.writeHead(status, { 'content-type': 'text/html', 'cache-control': 'no-store' });
        res.end('<!doctype html><title>rp</title>ok');
      }, rp.delayMs);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rp.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return rp;
}

/** Signs in through the login page (and consent) in a cookie-keeping browser: the token response. */
export async function browserLogin(
  server: MockServer,
  browser: Browser,
  overrides: Record<string, string | undefined> = {},
  user = { username: 'alice', password: 'wonderland' },
): Promise<{ tokens: Record<string, unknown>; location: URL }> {
  const pkce = createPkcePair();
  const request = pkceRequest(pkce, { scope: 'openid photo', ...overrides });
  let res = await browser.request(authorizeUrl(server, request));
  if (res.status === 200) {
    const fields = formFields(await res.text());
    res = await browser.submit(`${server.authUrl}/login`, { interaction: fields.interaction!, csrf_token: fields.csrf_token!, username: user.username, password: user.password });
  }
  if (res.status === 303 && res.headers.get('location')?.startsWith('consent')) {
    const page = await browser.request(new URL(res.headers.get('location')!, `${server.authUrl}/`).href);
    const fields = formFields(await page.text());
    res = await browser.submit(`${server.authUrl}/consent`, { interaction: fields.interaction!, csrf_token: fields.csrf_token!, decision: 'allow' });
  }
  const location = new URL(res.headers.get('location') ?? 'http://no.location/');
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code: ${res.status} ${location.href}`);
  const redirectUri = request.redirect_uri ?? REDIRECT_URI;
  const { status, body } = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'photo-cli', code_verifier: pkce.codeVerifier });
  if (status !== 200) throw new Error(`token ${status} ${JSON.stringify(body)}`);
  return { tokens: body, location };
}

export function claimsOf(jwt: unknown): Record<string, unknown> {
  return JSON.parse(Buffer.from(String(jwt).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

export function headerOf(jwt: unknown): Record<string, unknown> {
  return JSON.parse(Buffer.from(String(jwt).split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
}

/** Waits until `check` holds (a back-channel delivery runs on its own). */
export async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The logout token of the relying party's `n`th delivery, checked as a relying party checks it, at the mock's time. */
export async function verifiedLogoutToken(server: MockServer, rp: RelyingParty, n = 0) {
  const token = new URLSearchParams(rp.hits[n]!.body).get('logout_token')!;
  const jwks = createLocalJWKSet((await (await fetch(`${server.authUrl}/jwks`)).json()) as { keys: [] });
  const { payload } = await jwtVerify(token, jwks, { issuer: server.issuer, audience: 'photo-cli', typ: 'logout+jwt', currentDate: new Date(server.clock.now() * 1000) });
  return payload;
}
