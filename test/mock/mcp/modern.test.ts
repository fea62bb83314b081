// The mock's MCP endpoint in the 2026-07-28 revision over real HTTP on loopback: the standard headers
// validated against the body (400 HeaderMismatch otherwise), server/discover, a tool's x-mcp-header
// parameter, greet's input_required with a signed requestState, the legacy elicitation on the stream,
// and config mcp.protocol_versions.
import { describe, expect, it } from 'vitest';
import { startMock } from '../helpers.js';

const ACCEPT = 'application/json, text/event-stream';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

async function mock(mcp?: Record<string, unknown>) {
  const server = await startMock(mcp ? { mcp } : {});
  const url = `${server.baseUrl}/mcp`;
  const token = (await server.issueToken({ sub: 'alice', client_id: 'photo-cli', scope: 'photo', claims: { aud: url } })).access_token;
  /** A 2026-07-28 request with the headers a client sends, `headers` replacing them. */
  const call = async (method: string, params: Record<string, unknown> = {}, headers: Record<string, string | undefined> = {}, id = 1) => {
    const name = (params.name ?? params.uri) as string | undefined;
    const sent: Record<string, string> = {};
    for (const [k, v] of Object.entries({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name !== undefined && { 'mcp-name': name }), ...headers })) if (v !== undefined) sent[k] = v;
    const r = await fetch(url, {
      method: 'POST',
      headers: { accept: ACCEPT, 'content-type': 'application/json', authorization: `Bearer ${token}`, ...sent },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }),
    });
    return { status: r.status, body: (await r.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }, session: r.headers.get('mcp-session-id') };
  };
  return { server, url, token, call };
}

describe('the MCP endpoint in the 2026-07-28 revision', () => {
  it('answers without initialize or a session; server/discover names the revisions it speaks', async () => {
    const { call } = await mock();
    const discover = await call('server/discover');
    expect(discover.status).toBe(200);
    expect(discover.body.result).toMatchObject({ resultType: 'complete', supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], serverInfo: { name: 'oauthctl-mock' } });
    const list = await call('tools/list');
    expect(list.session).toBeNull();
    expect((list.body.result!.tools as { name: string }[]).map((t) => t.name)).toEqual(['whoami', 'echo', 'region_echo', 'greet']);
    const whoami = await call('tools/call', { name: 'whoami' });
    expect(whoami.body.result).toMatchObject({ resultType: 'complete', structuredContent: { sub: 'alice' } });
  });

  it('refuses with 400 and a clear HeaderMismatch: a missing or wrong Mcp-Method, a wrong Mcp-Name, a missing version header, a wrong Mcp-Param', async () => {
    const { call } = await mock();
    const wrong = await call('tools/list', {}, { 'mcp-method': 'tools/call' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: -32020, message: 'Header mismatch: Mcp-Method "tools/call" does not match the body\'s method "tools/list"' });
    expect((await call('tools/list', {}, { 'mcp-method': undefined })).body.error!.message).toContain('the Mcp-Method header is required');
    expect((await call('tools/call', { name: 'whoami' }, { 'mcp-name': 'echo' })).body.error!.message).toContain("Mcp-Name does not match the body's params.name");
    expect((await call('tools/list', {}, { 'mcp-protocol-version': undefined })).status).toBe(400);
    // The Base64 sentinel is decoded before the comparison.
    const encoded = await call(
      'tools/call',
      { name: 'region_echo', arguments: { region: 'ünterwalden', text: 'hi' } },
      { 'mcp-param-region': `=?base64?${Buffer.from('ünterwalden').toString('base64')}?=` },
    );
    expect(encoded.body.result).toMatchObject({ structuredContent: { region: 'ünterwalden', text: 'hi' } });
    const missing = await call('tools/call', { name: 'region_echo', arguments: { region: 'eu', text: 'hi' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: -32020, message: expect.stringContaining('Mcp-Param-Region is missing') });
    expect((await call('tools/call', { name: 'region_echo', arguments: { region: 'eu', text: 'hi' } }, { 'mcp-param-region': 'us' })).body.error!.message).toContain('does not match');
  });

  it('an unsupported version is UnsupportedProtocolVersionError naming the supported ones; _meta is required; an unknown method is 404', async () => {
    const { call } = await mock();
    const old = await call('tools/list', {}, { 'mcp-protocol-version': '2027-01-01' });
    expect(old.status).toBe(400);
    // The body's _meta makes it a 2026-07-28-era request; its header names a version the server does not speak.
    expect(old.body.error!.code).toBe(-32022);
    const unknown = await call('tasks/list');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error!.code).toBe(-32601);
  });

  it('greet: input_required with a signed requestState; the answer greets, a tampered state is refused', async () => {
    const { call } = await mock();
    const first = await call('tools/call', { name: 'greet' });
    expect(first.body.result).toMatchObject({ resultType: 'input_required', inputRequests: { name: { method: 'elicitation/create' } } });
    const state = first.body.result!.requestState as string;
    const answered = await call('tools/call', { name: 'greet', inputResponses: { name: { action: 'accept', content: { name: 'Bob' } } }, requestState: state }, {}, 2);
    expect(answered.body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'Hello, Bob!' }] });
    const tampered = await call('tools/call', { name: 'greet', inputResponses: { name: { action: 'accept', content: { name: 'Eve' } } }, requestState: `${state.slice(0, -2)}xx` }, {}, 3);
    expect(tampered.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('requestState is not one this server gave') });
  });

  it('config mcp.protocol_versions: only the earlier revisions refuses 2026-07-28 naming them; only 2026-07-28 refuses initialize; a bad list stops the start', async () => {
    const legacy = await mock({ protocol_versions: ['2025-11-25', '2025-06-18'] });
    const refused = await legacy.call('tools/list');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: -32022, data: { supported: ['2025-11-25', '2025-06-18'], requested: '2026-07-28' } });

    const modern = await mock({ protocol_versions: ['2026-07-28'] });
    const init = await fetch(modern.url, {
      method: 'POST',
      headers: { accept: ACCEPT, 'content-type': 'application/json', authorization: `Bearer ${modern.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    expect(init.status).toBe(400);
    expect(((await init.json()) as { error: { message: string } }).error.message).toContain('this server speaks 2026-07-28 only, without initialize');

    await expect(startMock({ mcp: { protocol_versions: ['2024-11-05'] } })).rejects.toThrow(/mcp\.protocol_versions/);
  });
});
