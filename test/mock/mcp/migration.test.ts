// SEP-2352 (authorization-server migration) with the mock alone: POST /_mock/mcp/authorization-server
// moves its MCP endpoint to a named issuer. Over HTTP: the metadata names issuer A (the root), then B;
// `oauthctl mcp` with a registration and tokens kept for A registers anew at B, never showing B the
// old client, and succeeds. A's tokens are refused by the moved endpoint; bad input names the field.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { homeEnv, runCli } from '../../helpers/cli.js';

const home = mkdtempSync(join(tmpdir(), 'oauthctl-mcp-move-'));
const env = homeEnv(home);
let mock: MockServer;
let mcp: string;
let issuerB: string;
beforeAll(async () => {
  mock = await createMockServer({ issuers: { b: {} } }, { autoLogin: 'alice' });
  mcp = `${mock.baseUrl}/mcp`;
  issuerB = mock.issuers.get('b')!.issuer;
});
afterAll(async () => {
  await mock?.close();
  rmSync(home, { recursive: true, force: true });
});

const metadata = async () => (await (await fetch(`${mock.issuer}/.well-known/oauth-protected-resource/api/mcp`)).json()) as { resource: string; authorization_servers: string[] };
const move = (body: unknown) => fetch(`${mock.issuer}/_mock/mcp/authorization-server`, { method: 'POST', body: JSON.stringify(body) });
const whoami = (...extra: string[]) => runCli(['mcp', mcp, 'tools/call', 'whoami', '--headless', '--json', ...extra], { env });
const clientOf = (stdout: string) => (JSON.parse(stdout) as { structuredContent: { client_id: string } }).structuredContent.client_id;

describe('POST /_mock/mcp/authorization-server', () => {
  let clientA: string;
  let tokenA: string;

  it('before: the metadata names the root issuer, and oauthctl mcp registers and logs in there', async () => {
    expect(await metadata()).toMatchObject({ resource: mcp, authorization_servers: [mock.issuer] });
    const r = await whoami();
    expect(r.code, r.stderr).toBe(0);
    clientA = clientOf(r.stdout);
    const token = await runCli(['token', '--protected-resource', mcp], { env });
    expect(token.code, token.stderr).toBe(0);
    tokenA = token.stdout.trim();
  });

  it("after the move to b: the metadata names b, A's token is refused, and oauthctl mcp registers anew at b", async () => {
    const res = await move({ issuer: 'b' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ resource: mcp, authorization_servers: [issuerB] });
    expect(await metadata()).toMatchObject({ resource: mcp, authorization_servers: [issuerB] });

    const old = await fetch(mcp, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenA}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    expect(old.status).toBe(401);
    expect(old.headers.get('www-authenticate')).toContain('invalid_token');

    const r = await whoami();
    expect(r.code, r.stderr).toBe(0);
    const clientB = clientOf(r.stdout);
    expect(clientB).not.toBe(clientA);
    expect(r.stderr).toContain(issuerB);
    // b never saw A's client: every request it logged came from the new registration (or none).
    const seen = (await (await fetch(`${issuerB}/_mock/requests`)).json()) as { requests: { path: string; client_id?: string; query: Record<string, string>; form: Record<string, string> }[] };
    expect(seen.requests.some((q) => q.path.endsWith('/register'))).toBe(true);
    expect(JSON.stringify(seen.requests)).not.toContain(clientA);
    // The root issuer no longer issues tokens for the moved resource (RFC 8707: not one of its resources).
    const authorize = new URL(`${mock.issuer}/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'photo-cli',
      redirect_uri: 'http://127.0.0.1:1/callback',
      scope: 'photo',
      state: 's',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource: mcp,
    }).toString();
    const refused = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location') ?? 'http://x/');
    expect(refused.searchParams.get('error')).toBe('invalid_target');
  });

  it('back with null: the root issuer again, and the registration kept for it is used once more', async () => {
    const res = await move({ issuer: null });
    expect(await res.json()).toEqual({ resource: mcp, authorization_servers: [mock.issuer] });
    expect(await metadata()).toMatchObject({ authorization_servers: [mock.issuer] });
    const r = await whoami();
    expect(r.code, r.stderr).toBe(0);
    expect(clientOf(r.stdout)).toBe(clientA);
  });

  it('an issuer the mock does not have, or an unknown field: 400 naming the field', async () => {
    const unknown = await move({ issuer: 'nowhere' });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: 'invalid_request', field: 'issuer', error_description: expect.stringContaining('named issuer of this server (b)') });
    const extra = await move({ issuer: 'b', path: '/x' });
    expect(extra.status).toBe(400);
    expect(await extra.json()).toMatchObject({ field: 'path' });
    expect(() => mock.moveMcpResource('nowhere')).toThrow(/named issuer/);
    expect(await metadata()).toMatchObject({ authorization_servers: [mock.issuer] });
  });
});
