import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { HttpClient, HttpResponse } from '../client/http.js';
import { resourceChallenge } from '../oauth/resource-metadata.js';
import type { IO } from '../output/io.js';
import type { Renderer } from '../output/render.js';
import { FlowError } from '../errors.js';
import type { CommonOptions } from './command.js';

/** What demo --mcp takes of demo's options. */
export interface McpDemoOptions extends CommonOptions {
  timeout?: number;
}

const ACCEPT = 'application/json, text/event-stream';
const PROTOCOL_VERSION = '2025-11-25';

/** One JSON-RPC message to the MCP endpoint (Streamable HTTP: POST, Accept both JSON and SSE). */
function post(http: HttpClient, url: string, message: unknown, headers: Record<string, string> = {}): Promise<HttpResponse> {
  return http.request(url, { method: 'POST', headers: { accept: ACCEPT, 'content-type': 'application/json', ...headers }, body: JSON.stringify(message) });
}

/** The JSON-RPC response of an answer: the JSON body, or the first SSE event's data. */
function rpcResult(res: HttpResponse): Record<string, unknown> {
  const text = (res.headers['content-type'] ?? '').startsWith('text/event-stream') ? (/^data: (.*)$/m.exec(res.body)?.[1] ?? '') : res.body;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw new FlowError(`the MCP server's answer (HTTP ${res.status}) is not JSON-RPC`);
  }
  const m = message as { result?: Record<string, unknown>; error?: { message?: string } };
  if (m.error || !m.result) throw new FlowError(`the MCP server answered an error: ${String(m.error?.message ?? 'no result')}`);
  return m.result;
}

/** Standard output kept aside: the login's token response, which the demo reads instead of printing. */
function captured(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/**
 * `demo --mcp`: the mock with its MCP endpoint, and an MCP client's whole authorization against it,
 * narrated: POST initialize and its 401 (MCP 2025-11-25 authorization, RFC 9728 section 5.1), the
 * login from the protected resource (its metadata, the authorization server's, dynamic registration,
 * PKCE with the resource indicator: login --protected-resource's path), then initialize with the
 * token, notifications/initialized, tools/call whoami (its result on stdout), and the session ended.
 */
export async function runMcpDemo(options: McpDemoOptions, io: IO, renderer: Renderer, user: { username: string; password: string }): Promise<number> {
  const [{ createMockServer }, { runLogin }, { createHttpClient }] = await Promise.all([import('../mock/index.js'), import('./login.js'), import('../client/http.js')]);
  const mock = await createMockServer(undefined, { autoLogin: user.username });
  const http = createHttpClient({ renderer, env: io.env });
  const url = `${mock.baseUrl}/mcp`;
  // The registration at this short-lived mock is kept in a folder of the demo's own, removed at the end.
  const scratch = await mkdtemp(join(tmpdir(), 'oauthctl-demo-mcp-'));
  try {
    renderer.step('Built-in mock: an MCP server and its authorization server');
    renderer.info(`MCP endpoint ${url} (Streamable HTTP, tools whoami and echo); authorization server ${mock.issuer}`);
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'oauthctl demo', version: '1' } } };
    renderer.step('POST initialize without a token');
    const first = await post(http, url, init);
    const challenge = resourceChallenge(first.headers['www-authenticate']);
    renderer.info(`HTTP ${first.status}; WWW-Authenticate names resource_metadata=${challenge.resourceMetadata ?? '(none)'} and scope=${challenge.scope ?? '(none)'} (RFC 9728 section 5.1)`);
    if (first.status !== 401) throw new FlowError(`the MCP endpoint answered HTTP ${first.status} without a token, not 401`);

    renderer.step('Authorization, as login --protected-resource does it');
    renderer.info('the resource metadata names the authorization server; the client registers (RFC 7591), then runs the code flow with PKCE and resource= (RFC 8707)');
    const tokens = captured();
    const code = await runLogin(
      {
        protectedResource: url,
        headless: true,
        username: user.username,
        password: user.password,
        cache: false,
        json: true,
        ...(options.timeout !== undefined && { timeout: options.timeout }),
        ...(options.verbose !== undefined && { verbose: options.verbose }),
        ...(options.color !== undefined && { color: options.color }),
        ...(options.showSecrets !== undefined && { showSecrets: options.showSecrets }),
      },
      { ...io, stdout: tokens.stream, env: { ...io.env, XDG_CONFIG_HOME: scratch, XDG_STATE_HOME: scratch } },
    );
    if (code !== 0) return code;
    const accessToken = (JSON.parse(tokens.text()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${accessToken}` };

    renderer.step('POST initialize with the access token');
    const started = await post(http, url, init, auth);
    const negotiated = rpcResult(started);
    const session = started.headers['mcp-session-id'];
    renderer.info(`HTTP ${started.status}; protocol version ${String(negotiated.protocolVersion)}${session ? `; Mcp-Session-Id kept for the next requests` : ''}`);
    const headers = { ...auth, 'mcp-protocol-version': String(negotiated.protocolVersion), ...(session ? { 'mcp-session-id': session } : {}) };
    const initialized = await post(http, url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    renderer.info(`notifications/initialized: HTTP ${initialized.status}`);

    renderer.step('tools/call whoami');
    const who = rpcResult(await post(http, url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, headers));
    renderer.ok('the MCP server saw the token: its sub, client_id and scope are on stdout');
    io.stdout.write(`${JSON.stringify(who.structuredContent ?? who, null, 2)}\n`);
    if (session) await http.request(url, { method: 'DELETE', headers });
    return 0;
  } finally {
    await http.close();
    await mock.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
