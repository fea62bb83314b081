// The mock's MCP endpoint {base_url}/mcp over real HTTP on loopback: the transport (MCP 2025-11-25
// Streamable HTTP), its authorization (RFC 9728 challenge, RFC 6750 errors, RFC 8707 audience) and
// hostile callers.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { MockConfigInput, MockServer } from '../../../src/mock/index.js';
import { startMock } from '../helpers.js';

const ACCEPT = 'application/json, text/event-stream';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

async function mockWithMcp(mcp?: Record<string, unknown>, extra: MockConfigInput = {}): Promise<{ server: MockServer; url: string; token(scope?: string, aud?: string): Promise<string> }> {
  const server = await startMock({ ...extra, ...(mcp ? { mcp } : {}) });
  const url = `${server.baseUrl}/mcp`;
  const token = async (scope = 'photo', aud = url) => (await server.issueToken({ sub: 'alice', client_id: 'photo-cli', scope, claims: { aud } })).access_token;
  return { server, url, token };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { accept: ACCEPT, 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** initialize, then the session id the server gave. */
async function initialize(url: string, token: string): Promise<string> {
  const r = await post(url, INIT, { authorization: `Bearer ${token}` });
  expect(r.status).toBe(200);
  return r.headers.get('mcp-session-id')!;
}

describe('the MCP endpoint: authorization', () => {
  it('401 to a POST initialize without a token names the resource metadata (path-inserted) and the scope', async () => {
    const { server, url } = await mockWithMcp();
    const r = await post(url, INIT);
    expect(r.status).toBe(401);
    const challenge = r.headers.get('www-authenticate')!;
    const metadataUrl = `${server.issuer}/.well-known/oauth-protected-resource/api/mcp`;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${metadataUrl}"`);
    expect(challenge).toContain('scope="photo"');
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: url, authorization_servers: [server.issuer], scopes_supported: ['photo'] });
  });

  it('a token for another resource (the mock API) is refused: invalid_token (RFC 8707 audience)', async () => {
    const { server, url, token } = await mockWithMcp();
    const r = await post(url, INIT, { authorization: `Bearer ${await token('photo', server.baseUrl)}` });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // and the endpoint's own token is refused by the mock API: no passthrough either way.
    expect((await fetch(`${server.baseUrl}/me`, { headers: { authorization: `Bearer ${await token()}` } })).status).toBe(401);
  });

  it('a token in the query is not taken; a forged or expired token is refused', async () => {
    const { server, url, token } = await mockWithMcp();
    const good = await token();
    expect((await post(`${url}?access_token=${good}`, INIT)).status).toBe(401);
    const [h, p] = good.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), scope: 'photo openid' })).toString('base64url')}.${good.split('.')[2]}`;
    expect((await post(url, INIT, { authorization: `Bearer ${forged}` })).status).toBe(401);
    server.clock.advance(7200);
    const expired = await post(url, INIT, { authorization: `Bearer ${good}` });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('expired');
  });

  it('step-up: a tool with its own scope answers 403 insufficient_scope naming every scope it needs; a wider token calls it', async () => {
    const { url, token } = await mockWithMcp({ tool_scopes: { whoami: ['profile'] } });
    const narrow = await token('photo');
    const session = await initialize(url, narrow);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    const headers = { authorization: `Bearer ${narrow}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const refused = await post(url, call, headers);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="insufficient_scope".*scope="photo profile"/);
    // echo needs no more than the endpoint's scope.
    const echo = await post(url, { ...call, params: { name: 'echo', arguments: { text: 'hi' } } }, headers);
    expect(((await echo.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text).toBe('hi');
    const wide = await token('photo profile');
    const ok = await post(url, call, { authorization: `Bearer ${wide}`, 'mcp-session-id': await initialize(url, wide), 'mcp-protocol-version': '2025-11-25' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({ sub: 'alice', client_id: 'photo-cli', scope: 'photo profile' });
  });
});

describe('the MCP endpoint: Streamable HTTP', () => {
  it('initialize negotiates the version; a session is kept, bound to its owner, and ended by DELETE', async () => {
    const { server, url, token } = await mockWithMcp();
    const t = await token();
    const older = await post(url, { ...INIT, params: { ...INIT.params, protocolVersion: '2025-06-18' } }, { authorization: `Bearer ${t}` });
    expect(((await older.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-06-18');
    const unknown = await post(url, { ...INIT, params: { ...INIT.params, protocolVersion: '1999-01-01' } }, { authorization: `Bearer ${t}` });
    expect(((await unknown.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');
    const session = await initialize(url, t);
    expect(session).toMatch(/^[\x21-\x7e]{16,}$/);
    const auth = { authorization: `Bearer ${t}`, 'mcp-protocol-version': '2025-11-25' };
    expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...auth, 'mcp-session-id': session })).status).toBe(202);
    expect((await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, auth)).status).toBe(400);
    const list = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...auth, 'mcp-session-id': session });
    expect(((await list.json()) as { result: { tools: { name: string }[] } }).result.tools.map((x) => x.name)).toEqual(['whoami', 'echo', 'region_echo', 'greet']);
    // Another user's token with this session id: as unknown as an ended session.
    const bob = (await server.issueToken({ sub: 'bob', client_id: 'photo-cli', scope: 'photo', claims: { aud: url } })).access_token;
    expect((await post(url, { jsonrpc: '2.0', id: 3, method: 'ping' }, { authorization: `Bearer ${bob}`, 'mcp-session-id': session })).status).toBe(404);
    expect((await fetch(url, { method: 'DELETE', headers: { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '1.0' } })).status).toBe(400);
    expect((await fetch(url, { method: 'DELETE', headers: { ...auth, 'mcp-session-id': session } })).status).toBe(204);
    expect((await post(url, { jsonrpc: '2.0', id: 4, method: 'ping' }, { ...auth, 'mcp-session-id': session })).status).toBe(404);
  });

  it("a flood of initialize by one caller ends only that caller's oldest sessions, never another's", async () => {
    const { server, url, token } = await mockWithMcp();
    const bob = (await server.issueToken({ sub: 'bob', client_id: 'photo-cli', scope: 'photo', claims: { aud: url } })).access_token;
    const bobSession = await initialize(url, bob);
    const alice = await token();
    const first = await initialize(url, alice);
    for (let i = 0; i < 25; i++) await initialize(url, alice);
    const ping = (t: string, session: string) => post(url, { jsonrpc: '2.0', id: 9, method: 'ping' }, { authorization: `Bearer ${t}`, 'mcp-session-id': session });
    expect((await ping(bob, bobSession)).status).toBe(200);
    expect((await ping(alice, first)).status).toBe(404);
  });

  it('stateless, SSE answers: no session id, the response as one SSE event; GET is 405; DELETE is 405', async () => {
    const { url, token } = await mockWithMcp({ sessions: false, response: 'sse' });
    const t = await token();
    const r = await post(url, INIT, { authorization: `Bearer ${t}` });
    expect(r.headers.get('mcp-session-id')).toBeNull();
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const text = await r.text();
    expect(text).toMatch(/^event: message\ndata: \{.*\}\n\n$/);
    expect(JSON.parse(text.split('data: ')[1]!)).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    const get = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${t}` } });
    expect(get.status).toBe(405);
    expect((await fetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${t}` } })).status).toBe(405);
  });

  it('refuses what the transport forbids: Accept, Content-Type, an unknown protocol version, batches, bad JSON, unknown methods and tools', async () => {
    const { url, token } = await mockWithMcp({ sessions: false });
    const auth = { authorization: `Bearer ${await token()}` };
    expect((await post(url, INIT, { ...auth, accept: 'application/json' })).status).toBe(406);
    expect((await post(url, INIT, { ...auth, 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(url, { jsonrpc: '2.0', id: 2, method: 'ping' }, { ...auth, 'mcp-protocol-version': '2030-01-01' })).status).toBe(400);
    const batch = await post(url, [INIT], auth);
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: { code: number } }).error.code).toBe(-32600);
    const bad = await post(url, '{"jsonrpc":', auth);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const deep = await post(url, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`, auth);
    expect(deep.status).toBe(400);
    const unknownMethod = await post(url, { jsonrpc: '2.0', id: 3, method: 'resources/list' }, auth);
    expect(((await unknownMethod.json()) as { error: { code: number } }).error.code).toBe(-32601);
    const unknownTool = await post(url, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: '\u001b[31mx', arguments: {} } }, auth);
    expect(((await unknownTool.json()) as { error: { code: number; message: string } }).error).toMatchObject({ code: -32602 });
  });

  it('an Origin of another site is refused with 403 before anything else (DNS rebinding); a loopback one is taken', async () => {
    const { url, token } = await mockWithMcp({ sessions: false });
    const auth = { authorization: `Bearer ${await token()}` };
    expect((await post(url, INIT, { ...auth, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(url, INIT, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(url, INIT, { ...auth, origin: 'http://localhost:6274' })).status).toBe(200);
  });

  it('a body that never ends does not hold the answer to others; an oversized body is 413', async () => {
    const { url, token } = await mockWithMcp({ sessions: false });
    const auth = { authorization: `Bearer ${await token()}` };
    const { port } = new URL(url);
    const slow = connect(Number(port), '127.0.0.1');
    slow.write(`POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth.authorization}\r\nAccept: ${ACCEPT}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"`);
    try {
      expect((await post(url, INIT, auth)).status).toBe(200);
      expect((await post(url, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'a'.repeat(70_000)}"}}`, auth)).status).toBe(413);
    } finally {
      slow.destroy();
    }
  });
});

describe('the MCP endpoint: configuration', () => {
  it('metadata at the root, or only in the header at a custom path; the path-inserted URL then 404s', async () => {
    for (const [where, path] of [
      ['root', '/.well-known/oauth-protected-resource'],
      ['header', '/api/mcp/resource-metadata.json'],
    ] as const) {
      const { server, url } = await mockWithMcp({ resource_metadata: where });
      const r = await post(url, INIT);
      expect(r.headers.get('www-authenticate')).toContain(`resource_metadata="${server.issuer}${path}"`);
      expect(((await (await fetch(`${server.issuer}${path}`)).json()) as { resource: string }).resource).toBe(url);
      expect((await fetch(`${server.issuer}/.well-known/oauth-protected-resource/api/mcp`)).status).toBe(404);
      if (where === 'header') expect((await fetch(`${server.issuer}/.well-known/oauth-protected-resource`)).status).toBe(404);
    }
  });

  it('the 2025-03-26 revision: no resource_metadata, no resource metadata; the AS metadata at the origin or none', async () => {
    const { server, url, token } = await mockWithMcp({ revision: '2025-03-26', authorization_server_metadata: false });
    const r = await post(url, INIT);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).not.toContain('resource_metadata');
    expect((await fetch(`${server.issuer}/.well-known/oauth-protected-resource/api/mcp`)).status).toBe(404);
    expect((await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)).status).toBe(404);
    // A token without a resource indicator (that revision has none) is taken; the version is 2025-03-26 only.
    const ok = await post(url, INIT, { authorization: `Bearer ${await token('photo', server.baseUrl)}` });
    expect(((await ok.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-03-26');
    const withMetadata = await mockWithMcp({ revision: '2025-03-26' });
    expect((await fetch(`${withMetadata.server.issuer}/.well-known/oauth-authorization-server`)).status).toBe(200);
  });

  it('CIMD-only closes registration; registration-only turns metadata documents off', async () => {
    const cimd = await mockWithMcp({ clients: 'cimd' });
    const m1 = (await (await fetch(`${cimd.server.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(m1.client_id_metadata_document_supported).toBe(true);
    expect(m1.registration_endpoint).toBeUndefined();
    const reg = await fetch(`${cimd.server.issuer}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'] }) });
    expect(reg.status).toBe(403);
    const registration = await mockWithMcp({ clients: 'registration' });
    const m2 = (await (await fetch(`${registration.server.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(m2.client_id_metadata_document_supported).toBe(false);
    expect(m2.registration_endpoint).toBe(`${registration.server.issuer}/register`);
  });

  it('machine clients: the client credentials grant issues a token for the resource asked (RFC 8707); an unknown one is invalid_target', async () => {
    const { server, url } = await mockWithMcp({ sessions: false });
    const grant = (resource: string) =>
      fetch(`${server.issuer}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('photo-service:photo-service-secret').toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'photo', resource }),
      });
    const ok = (await (await grant(url)).json()) as { access_token: string };
    const who = await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, { authorization: `Bearer ${ok.access_token}` });
    expect(((await who.json()) as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({ sub: 'photo-service', client_id: 'photo-service', scope: 'photo' });
    const refused = await grant('https://elsewhere.example/mcp');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_target');
  });

  it('disabled: no endpoint', async () => {
    const { url } = await mockWithMcp({ enabled: false });
    expect((await post(url, INIT)).status).toBe(404);
  });
});
