// Cross-app access over HTTP on loopback: one mock as the enterprise identity provider issues an ID-JAG
// for an ID token (RFC 8693 token exchange), a second mock as the MCP server's authorization server
// takes it by the JWT bearer grant (RFC 7523 section 2.1), and its MCP endpoint answers whoami.
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../../src/mock/index.js';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { startMock } from '../helpers.js';

const REDIRECT = 'http://127.0.0.1:4567/callback';
const AGENT = { id: 'agent', secret: 'agent-secret-0123456789' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** The IdP, and the MCP server's authorization server trusting it; the agent is a client of both. */
async function parties(asConfig: Record<string, unknown> = {}): Promise<{ idp: MockServer; as: MockServer; mcp: string }> {
  const idp = await startMock(undefined, { autoLogin: 'alice' });
  const as = await startMock({
    clients: [
      { client_id: AGENT.id, client_secret: AGENT.secret, grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'] },
      { client_id: 'other', client_secret: 'other-secret-0123456789', grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'] },
    ],
    mcp: { sessions: false, identity_providers: [{ issuer: idp.issuer, jwks_uri: `${idp.issuer}/jwks` }] },
    ...asConfig,
  });
  idp.addClient({
    client_id: AGENT.id,
    client_secret: AGENT.secret,
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange'],
    token_exchange: { audiences: [as.issuer] },
  });
  return { idp, as, mcp: `${as.baseUrl}/mcp` };
}

/** alice signs in at the IdP (the code flow, openid): the ID token issued to the agent. */
async function idToken(idp: { issuer: string }): Promise<string> {
  const pkce = createPkcePair();
  const url = new URL(`${idp.issuer}/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: AGENT.id,
    redirect_uri: REDIRECT,
    scope: 'openid',
    state: 'xaa-state-0123456789',
    nonce: 'n-0123456789',
    code_challenge: pkce.codeChallenge,
    code_challenge_method: 'S256',
  }))
    url.searchParams.set(k, v);
  const code = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
  const r = await fetch(`${idp.issuer}/token`, {
    method: 'POST',
    headers: { authorization: basic(AGENT.id, AGENT.secret) },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: pkce.codeVerifier }),
  });
  return ((await r.json()) as { id_token: string }).id_token;
}

async function form(url: string, fields: Record<string, string>, client = AGENT): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(url, { method: 'POST', headers: { authorization: basic(client.id, client.secret) }, body: new URLSearchParams(fields) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

const exchange = (idp: { issuer: string }, subject: string, fields: Record<string, string>) =>
  form(`${idp.issuer}/token`, {
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
    subject_token: subject,
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    ...fields,
  });

const bearerGrant = (as: { issuer: string }, assertion: string, client = AGENT) => form(`${as.issuer}/token`, { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }, client);

describe('cross-app access: ID-JAG by token exchange, then the JWT bearer grant', () => {
  it('the IdP issues an ID-JAG; the MCP server`s authorization server takes it once; the token calls whoami', async () => {
    const { idp, as, mcp } = await parties();
    const idJag = await exchange(idp, await idToken(idp), { audience: as.issuer, resource: mcp, scope: 'photo' });
    expect(idJag.status, JSON.stringify(idJag.body)).toBe(200);
    expect(idJag.body).toMatchObject({ issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' });
    const jag = String(idJag.body.access_token);
    expect(decodeProtectedHeader(jag).typ).toBe('oauth-id-jag+jwt');
    expect(decodeJwt(jag)).toMatchObject({ iss: idp.issuer, sub: 'alice', aud: as.issuer, client_id: AGENT.id, resource: mcp, scope: 'photo' });

    const token = await bearerGrant(as, jag);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.refresh_token).toBeUndefined();
    expect(decodeJwt(String(token.body.access_token))).toMatchObject({ aud: mcp, sub: 'alice', client_id: AGENT.id, scope: 'photo' });
    const who = await fetch(mcp, {
      method: 'POST',
      headers: { authorization: `Bearer ${String(token.body.access_token)}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });
    expect(((await who.json()) as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({ sub: 'alice', client_id: AGENT.id, scope: 'photo' });

    // Replayed: refused.
    const again = await bearerGrant(as, jag);
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(String(again.body.error_description)).toContain('used before');
  });

  it("the authorization server refuses an ID-JAG of another client, for another server, expired, forged, or from an issuer it doesn't trust", async () => {
    const { idp, as, mcp } = await parties();
    const subject = await idToken(idp);
    const fresh = async () => String((await exchange(idp, subject, { audience: as.issuer, resource: mcp, scope: 'photo' })).body.access_token);
    const other = { id: 'other', secret: 'other-secret-0123456789' };
    expect(await bearerGrant(as, await fresh(), other)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // Not spent by the refusal: the agent may still use it.
    const kept = await fresh();
    expect((await bearerGrant(as, kept, other)).status).toBe(400);
    expect((await bearerGrant(as, kept)).status).toBe(200);
    const expiring = await fresh();
    as.clock.advance(400);
    expect(await bearerGrant(as, expiring)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    as.clock.advance(-400);

    // Forged: the IdP's issuer and claims, another key.
    const { privateKey } = await generateKeyPair('ES256');
    const claims = { ...decodeJwt(await fresh()), jti: 'forged-1' };
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt' }).sign(privateKey);
    expect(await bearerGrant(as, forged)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // An access token of the IdP is no ID-JAG (typ at+jwt).
    const { access_token: accessToken } = await idp.issueToken({ sub: 'alice', client_id: AGENT.id, claims: { aud: as.issuer } });
    expect(await bearerGrant(as, accessToken)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // For another authorization server.
    idp.addClient({
      client_id: 'agent2',
      client_secret: 'agent2-secret-0123456789',
      redirect_uris: [REDIRECT],
      grant_types: ['urn:ietf:params:oauth:grant-type:token-exchange'],
      token_exchange: { audiences: ['https://as.other.example'] },
    });
    expect((await exchange(idp, subject, { audience: 'https://as.other.example' })).body.error).toBe('invalid_target');
  });

  it('a named issuer of the same mock as the identity provider (its own keys)', async () => {
    // A fixed issuer URL (the mock is reached on its port) lets the configuration name the audience.
    const issuer = 'http://as.example';
    const server = await startMock(
      {
        clients: [{ client_id: AGENT.id, client_secret: AGENT.secret, grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'] }],
        issuers: {
          idp: {
            clients: [
              {
                client_id: AGENT.id,
                client_secret: AGENT.secret,
                redirect_uris: [REDIRECT],
                grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange'],
                token_exchange: { audiences: [issuer] },
              },
            ],
          },
        },
        mcp: { identity_providers: [{ issuer: 'idp' }] },
      },
      { autoLogin: 'alice', issuerUrl: issuer },
    );
    const local = `http://127.0.0.1:${server.port}`;
    const idp = { issuer: `${local}/idp` };
    const subject = await idToken(idp);
    expect(decodeJwt(subject).iss).toBe(`${issuer}/idp`);
    const jag = await exchange(idp, subject, { audience: issuer, resource: `${issuer}/api/mcp`, scope: 'photo' });
    expect(jag.status, JSON.stringify(jag.body)).toBe(200);
    const token = await bearerGrant({ issuer: local }, String(jag.body.access_token));
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(decodeJwt(String(token.body.access_token))).toMatchObject({ iss: issuer, sub: 'alice', aud: `${issuer}/api/mcp` });
  });

  it('an identity provider given by its keys inline; one not trusted is refused', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const as = await startMock({
      clients: [{ client_id: AGENT.id, client_secret: AGENT.secret, grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'] }],
      mcp: { identity_providers: [{ issuer: 'https://idp.example', jwks: { keys: [jwk] } }] },
    });
    const now = Math.floor(as.clock.now());
    const jag = (iss: string, jti: string) =>
      new SignJWT({ sub: 'bob', client_id: AGENT.id, resource: `${as.baseUrl}/mcp`, scope: 'photo' })
        .setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt', kid: 'k1' })
        .setIssuer(iss)
        .setAudience(as.issuer)
        .setIssuedAt(now)
        .setExpirationTime(now + 120)
        .setJti(jti)
        .sign(privateKey);
    const ok = await bearerGrant(as, await jag('https://idp.example', 'j1'));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(decodeJwt(String(ok.body.access_token))).toMatchObject({ sub: 'bob', aud: `${as.baseUrl}/mcp` });
    expect(await bearerGrant(as, await jag('https://evil.example', 'j2'))).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('the configuration names the field at fault', async () => {
    await expect(startMock({ mcp: { identity_providers: [{ issuer: 'https://idp.example' }] } })).rejects.toThrow(/mcp\.identity_providers\[0\]: give the identity provider's keys/);
    await expect(startMock({ mcp: { identity_providers: [{ issuer: 'not a url', jwks_uri: 'https://x.example/jwks' }] } })).rejects.toThrow(/mcp\.identity_providers\[0\]\.issuer/);
    await expect(startMock({ mcp: { tool_scopes: { whoami: ['nope'] } } })).rejects.toThrow(/mcp\.tool_scopes\.whoami: scope "nope"/);
    await expect(startMock({ mcp: { resource_metadata: 'somewhere' } })).rejects.toThrow(/mcp\.resource_metadata: must be one of/);
  });
});
