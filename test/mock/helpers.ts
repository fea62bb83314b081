import { afterEach } from 'vitest';
import { createMockServer, type MockConfigInput, type MockServer, type MockServerOptions } from '../../src/mock/index.js';
import { createPkcePair, type PkcePair } from '../../src/oauth/pkce.js';

const running: MockServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** A mock on 127.0.0.1:0, closed after the test. */
export async function startMock(config?: MockConfigInput, options: MockServerOptions = {}): Promise<MockServer> {
  const server = await createMockServer(config, options);
  running.push(server);
  return server;
}

export const REDIRECT_URI = 'http://127.0.0.1:53682/callback';

export function authorizeUrl(server: Pick<MockServer, 'authUrl'>, params: Record<string, string | undefined>): string {
  const url = new URL(`${server.authUrl}/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  return url.href;
}

/** A valid public-client PKCE request; override or drop (undefined) any parameter. */
export function pkceRequest(pkce: PkcePair, overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    response_type: 'code',
    client_id: 'photo-cli',
    redirect_uri: REDIRECT_URI,
    state: 'state-123',
    scope: 'photo',
    code_challenge: pkce.codeChallenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
}

export async function getRedirect(url: string, init: RequestInit = {}): Promise<{ status: number; location: URL | undefined; response: Response }> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const loc = response.headers.get('location');
  return { status: response.status, location: loc ? new URL(loc) : undefined, response };
}

/** With an auto-login server: the code of a successful authorization request. */
export async function getCode(server: Pick<MockServer, 'authUrl'>, params: Record<string, string | undefined>): Promise<string> {
  const { status, location } = await getRedirect(authorizeUrl(server, params));
  const code = location?.searchParams.get('code');
  if (status !== 302 || !code) throw new Error(`no code: ${status} ${location?.href}`);
  return code;
}

export async function postForm(
  url: string,
  form: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v !== undefined) body.append(k, v);
  const response = await fetch(url, { method: 'POST', body, headers });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: response.headers };
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** A whole PKCE flow through an auto-login server: the token response. */
export async function pkceTokens(server: MockServer, scope = 'photo'): Promise<Record<string, unknown>> {
  const pkce = createPkcePair();
  const code = await getCode(server, pkceRequest(pkce, { scope }));
  const { status, body } = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier });
  if (status !== 200) throw new Error(`token ${status} ${JSON.stringify(body)}`);
  return body;
}

/** fetch with a cookie jar and manual redirects, as a browser would keep the session. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of response.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return response;
  }

  submit(url: string, form: Record<string, string>): Promise<Response> {
    return this.request(url, { method: 'POST', body: new URLSearchParams(form), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }
}

/** The hidden and named inputs of the first form on a page. */
export function formFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input [^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

/** A request to the admin API: JSON in and out. */
export async function adminRequest(server: MockServer, path: string, body?: unknown, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.authUrl}/_mock/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    ...init,
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
