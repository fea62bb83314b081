import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createPkcePair } from '../../src/oauth/pkce.js';
import type { MockServer } from '../../src/mock/index.js';
import { authorizeUrl, getRedirect, pkceRequest, REDIRECT_URI, startMock } from './helpers.js';

const PRINTS = 'https://prints.example/api';
const start = () => startMock({ resources: [PRINTS] }, { autoLogin: 'alice' });

/** A code for photo-cli with the given resource parameters (repeated), and the token form. */
async function codeWith(server: MockServer, resources: string[], scope = 'photo offline_access') {
  const pkce = createPkcePair();
  const url = new URL(authorizeUrl(server, pkceRequest(pkce, { scope })));
  for (const r of resources) url.searchParams.append('resource', r);
  const { location } = await getRedirect(url.href);
  return {
    location: location!,
    form: { grant_type: 'authorization_code', code: location!.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier },
  };
}

const token = (server: MockServer, form: Record<string, string>, resources: string[] = []) => {
  const body = new URLSearchParams(form);
  for (const r of resources) body.append('resource', r);
  return fetch(`${server.authUrl}/token`, { method: 'POST', body }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));
};

describe('resource indicators (RFC 8707)', () => {
  it('the access token is for the resource asked for; without one, for {base_url}', async () => {
    const server = await start();
    const plain = await codeWith(server, []);
    expect(decodeJwt((await token(server, plain.form)).body.access_token!).aud).toBe(server.baseUrl);
    const prints = await codeWith(server, [PRINTS]);
    const tokens = await token(server, prints.form);
    expect(decodeJwt(tokens.body.access_token!).aud).toBe(PRINTS);
    // A token for another resource is not good at {base_url}.
    const api = await fetch(`${server.baseUrl}/photos`, { headers: { Authorization: `Bearer ${tokens.body.access_token}` } });
    expect(api.status).toBe(401);
  });

  it('two resources on /authorize; the token request narrows to one of them', async () => {
    const server = await start();
    const { form } = await codeWith(server, [server.baseUrl, PRINTS]);
    const narrowed = await token(server, form, [server.baseUrl]);
    expect(narrowed.status).toBe(200);
    expect(decodeJwt(narrowed.body.access_token!).aud).toBe(server.baseUrl);
    // The refresh token keeps both: a refresh can ask for the other one.
    const refreshed = await token(server, { grant_type: 'refresh_token', refresh_token: narrowed.body.refresh_token!, client_id: 'photo-cli' }, [PRINTS]);
    expect(decodeJwt(refreshed.body.access_token!).aud).toBe(PRINTS);
  });

  it('refuses an unknown resource on /authorize with invalid_target', async () => {
    const server = await start();
    const { location } = await codeWith(server, ['https://unknown.example/']);
    expect(location.searchParams.get('error')).toBe('invalid_target');
    const relative = await codeWith(server, ['/relative']);
    expect(relative.location.searchParams.get('error')).toBe('invalid_target');
    const fragment = await codeWith(server, [`${PRINTS}#x`]);
    expect(fragment.location.searchParams.get('error')).toBe('invalid_target');
  });

  it('refuses at the token endpoint a resource outside the grant, or unknown', async () => {
    const server = await start();
    const { form } = await codeWith(server, [PRINTS]);
    const outside = await token(server, form, [server.baseUrl]);
    expect(outside.status).toBe(400);
    expect(outside.body.error).toBe('invalid_target');
    const second = await codeWith(server, []);
    const unknown = await token(server, second.form, ['https://unknown.example/']);
    expect(unknown.body.error).toBe('invalid_target');
  });

  it('a repeated resource is not a duplicate parameter, other repeated parameters still are', async () => {
    const server = await start();
    const pkce = createPkcePair();
    const url = new URL(authorizeUrl(server, pkceRequest(pkce)));
    url.searchParams.append('scope', 'openid');
    expect((await getRedirect(url.href)).location?.searchParams.get('error_description')).toMatch(/scope parameter is sent more than once/);
  });
});
