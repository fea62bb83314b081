import { describe, expect, it } from 'vitest';
import { errorDescription } from '../../src/mock/core/http/http.js';
import { createPkcePair } from '../../src/oauth/pkce.js';
import { authorizeUrl, basic, getCode, getRedirect, pkceRequest, postForm, REDIRECT_URI, startMock } from './helpers.js';

/** RFC 6749 section 5.2 and RFC 6750 section 3: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ). */
const NQSCHAR_OR_SPACE = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/;
/** Echoed back by some error descriptions: a double quote, a backslash, a control character, non-ASCII. */
const NASTY = 'x"y\\z\u0007é€';

describe('every error_description the mock emits keeps to the RFC 6749 section 5.2 character set', () => {
  it('errorDescription() maps quotes, backslashes and other characters into the set', () => {
    expect(errorDescription(`grant_type "a\\b" is \u0001 ünknown`)).toBe("grant_type 'ab' is ? ?nknown");
    expect(errorDescription(`code verifier may only contain A-Z a-z 0-9 - . _ ~ (RFC 7636 section 4.1); found "\\""`)).toMatch(NQSCHAR_OR_SPACE);
  });

  it('token, introspection and revocation errors, the authorize error redirects, the API and the router', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const pkce = createPkcePair();
    const token = `${server.authUrl}/token`;
    const descriptions: { where: string; text: unknown }[] = [];
    const json = async (where: string, p: Promise<{ status: number; body: Record<string, unknown> }>) => {
      const res = await p;
      expect(res.status, where).toBeGreaterThanOrEqual(400);
      descriptions.push({ where, text: res.body.error_description });
    };

    // Token endpoint (RFC 6749 section 5.2), with user input echoed where the mock echoes it.
    await json('unsupported grant_type', postForm(token, { grant_type: NASTY, client_id: 'photo-cli' }));
    await json('unknown client', postForm(token, { grant_type: 'authorization_code', code: 'c', client_id: NASTY }));
    await json('wrong secret', postForm(token, { grant_type: 'authorization_code', code: 'c' }, { authorization: basic('photo-web', NASTY) }));
    await json('not a form', postForm(token, { grant_type: 'authorization_code' }, { 'content-type': 'application/json' }));
    await json('duplicate parameter', fetchJson(token, 'grant_type=a&grant_type=b'));
    await json('unknown code', postForm(token, { grant_type: 'authorization_code', code: NASTY, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier }));
    const code = await getCode(server, pkceRequest(pkce));
    await json('bad verifier', postForm(token, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: `${'a'.repeat(43)}"\\` }));
    await json('unknown refresh token', postForm(token, { grant_type: 'refresh_token', refresh_token: NASTY, client_id: 'photo-cli' }));
    await json('introspection, public client', postForm(`${server.authUrl}/introspect`, { token: NASTY, client_id: 'photo-cli' }));
    await json('revocation, unknown client', postForm(`${server.authUrl}/revoke`, { token: NASTY, client_id: NASTY }));

    // The router's own errors.
    await json('no such endpoint', fetchJson(`${server.authUrl}/nope"\\`));
    await json('method not allowed', fetchJson(`${server.authUrl}/authorize`, 'x=1'));

    // The protected API: the body and the WWW-Authenticate error_description (RFC 6750 section 3).
    const api = await fetch(`${server.baseUrl}/photos`, { headers: { authorization: 'Bearer abc.def.ghi' } });
    expect(api.status).toBe(401);
    descriptions.push({ where: 'API body', text: ((await api.json()) as Record<string, unknown>).error_description });
    const challenge = /error_description="([^"]*)"/.exec(api.headers.get('www-authenticate') ?? '');
    descriptions.push({ where: 'API WWW-Authenticate', text: challenge?.[1] });

    // Authorization error redirects (RFC 6749 section 4.1.2.1), echoing response_type, scope, method, prompt.
    for (const overrides of [{ response_type: NASTY }, { scope: `photo ${NASTY}` }, { code_challenge_method: NASTY }, { prompt: NASTY }, { response_mode: NASTY }]) {
      const { status, location } = await getRedirect(authorizeUrl(server, pkceRequest(pkce, overrides)));
      expect(status).toBe(302);
      expect(location?.searchParams.get('error')).toBeTruthy();
      descriptions.push({ where: `authorize ${JSON.stringify(overrides)}`, text: location?.searchParams.get('error_description') });
    }

    expect(descriptions).toHaveLength(19);
    for (const { where, text } of descriptions) {
      expect(typeof text, where).toBe('string');
      expect(text, where).toMatch(NQSCHAR_OR_SPACE);
    }
    // Echoed input is still recognisable, quoted with single quotes.
    expect(descriptions.find((d) => d.where === 'unsupported grant_type')?.text).toBe(
      "grant_type 'x'yz???' is not supported; use authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code, urn:ietf:params:oauth:grant-type:token-exchange, urn:openid:params:grant-type:ciba, urn:ietf:params:oauth:grant-type:jwt-bearer",
    );
  });
});

async function fetchJson(url: string, form?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, form === undefined ? {} : { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
