// The MCP endpoint with CIMD-only clients (config mcp.clients "cimd"): a client whose client_id is its
// Client ID Metadata Document URL (served on loopback) authorizes and calls whoami; registration is closed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { startMock } from '../helpers.js';

const REDIRECT = 'http://127.0.0.1:4567/callback';
let host: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (host ? host.close(() => r()) : r()));
  host = undefined;
});

async function documentUrl(): Promise<string> {
  host = createServer((req, res) => {
    const url = `http://127.0.0.1:${(host!.address() as AddressInfo).port}${req.url}`;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ client_id: url, client_name: 'cimd client', redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    );
  });
  await new Promise<void>((r) => host!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(host.address() as AddressInfo).port}/client.json`;
}

describe('the MCP endpoint with CIMD-only clients', () => {
  it('the document URL is the client_id; the token it gets calls whoami; registering is refused', async () => {
    const server = await startMock({ mcp: { clients: 'cimd', sessions: false }, client_id_metadata_documents: { allow_http_loopback: true } }, { autoLogin: 'alice' });
    const mcp = `${server.baseUrl}/mcp`;
    const clientId = await documentUrl();
    const pkce = createPkcePair();
    const authorize = new URL(`${server.issuer}/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'photo',
      state: 'cimd-state-0123456789',
      code_challenge: pkce.codeChallenge,
      code_challenge_method: 'S256',
      resource: mcp,
    }))
      authorize.searchParams.set(k, v);
    const redirect = await fetch(authorize, { redirect: 'manual' });
    const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;
    expect(code).toBeTruthy();
    const token = await fetch(`${server.issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: pkce.codeVerifier, resource: mcp }),
    });
    const { access_token } = (await token.json()) as { access_token: string };
    const call = await fetch(mcp, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });
    expect(((await call.json()) as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({ sub: 'alice', client_id: clientId, scope: 'photo' });
    const register = await fetch(`${server.issuer}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT] }) });
    expect(register.status).toBe(403);
  });
});
