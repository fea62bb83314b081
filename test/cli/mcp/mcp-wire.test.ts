// `oauthctl mcp` on the wire, against MCP servers on loopback that need no token: the 2026-07-28 revision
// (headers, _meta, input_required with requestState, x-mcp-header), the fallback to initialize and
// --mcp-version, event streams (kept open after the answer, never answering, closed before the answer
// and resumed), isError, and the server's own error text.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { homeEnv, runCli } from '../../helpers/cli.js';

interface Message {
  id?: number;
  method: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
}
type Handler = (req: IncomingMessage, message: Message | undefined, res: ServerResponse) => void;

const servers: Server[] = [];
let home: string;
let env: Record<string, string>;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-mcp-wire-'));
  env = homeEnv(home);
});
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  rmSync(home, { recursive: true, force: true });
});

async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => handler(req, body === '' ? undefined : (JSON.parse(body) as Message), res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

const json = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};
const ok = (res: ServerResponse, id: number | undefined, result: unknown) => json(res, 200, { jsonrpc: '2.0', id, result });

/** A server of an earlier revision: initialize, then `answer`; a request without a session is 400 (as the SDK 1.x answers one). */
function legacyServer(answer: (m: Message, res: ServerResponse, req: IncomingMessage) => void, seen: Message[] = []): Handler {
  return (req, m, res) => {
    if (m === undefined) return answer({ method: 'GET' }, res, req);
    seen.push(m);
    if (m.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' });
      return res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'x', version: '1' } } }));
    }
    if (req.headers['mcp-session-id'] !== 's-1') return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } });
    if (m.id === undefined) return void res.writeHead(202).end();
    answer(m, res, req);
  };
}

describe('the 2026-07-28 revision', () => {
  it('sends MCP-Protocol-Version, Mcp-Method, Mcp-Name, _meta and the x-mcp-header parameters; no initialize', async () => {
    const seen: { headers: IncomingMessage['headers']; m: Message }[] = [];
    const url = await serve((req, m, res) => {
      seen.push({ headers: req.headers, m: m! });
      if (m!.method === 'tools/list')
        return ok(res, m!.id, {
          tools: [
            { name: 'weather', inputSchema: { type: 'object', properties: { city: { type: 'string', 'x-mcp-header': 'City' }, days: { type: 'integer', 'x-mcp-header': 'Days' } } } },
            { name: 'broken', inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } },
          ],
        });
      ok(res, m!.id, { content: [{ type: 'text', text: 'sunny' }] });
    });
    const r = await runCli(['mcp', url, 'tools/call', 'weather', '--arguments', '{"city":"Zürich","days":3}', '--no-login'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('MCP 2026-07-28 (the newest revision oauthctl speaks');
    expect(seen.map((s) => s.m.method)).toEqual(['tools/list', 'tools/call']);
    const call = seen[1]!;
    expect(call.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(call.headers['mcp-method']).toBe('tools/call');
    expect(call.headers['mcp-name']).toBe('weather');
    // Value Encoding: non-ASCII text as the Base64 sentinel; an integer as its decimal.
    expect(call.headers['mcp-param-city']).toBe(`=?base64?${Buffer.from('Zürich').toString('base64')}?=`);
    expect(call.headers['mcp-param-days']).toBe('3');
    expect(call.headers['mcp-session-id']).toBeUndefined();
    expect(call.m.params!._meta).toMatchObject({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });

    // A tool whose declaration is invalid (x-mcp-header on a number) is left out of tools/list and never called.
    const list = await runCli(['mcp', url, '--no-login', '--json'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['weather']);
    expect(list.stderr).toContain('the tool broken is left out');
    const before = seen.length;
    const refused = await runCli(['mcp', url, 'tools/call', 'broken', '--arguments', '{"n":1}', '--no-login'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('declares the tool broken with an invalid x-mcp-header');
    expect(seen.slice(before).map((s) => s.m.method)).toEqual(['tools/list']);
  });

  it('answers an input_required result from --input, echoing requestState exactly, with a new id; without the input, exit 1 naming it', async () => {
    const state = 'opaque "state" \u00e9 {not json';
    const calls: Message[] = [];
    const url = await serve((_req, m, res) => {
      if (m!.method === 'tools/list') return ok(res, m!.id, { tools: [{ name: 'book', inputSchema: { type: 'object' } }] });
      calls.push(m!);
      if (m!.params!.inputResponses === undefined)
        return ok(res, m!.id, {
          resultType: 'input_required',
          inputRequests: {
            seat: {
              method: 'elicitation/create',
              params: { message: 'Which seat?', requestedSchema: { type: 'object', properties: { row: { type: 'integer', default: 7 }, seat: { type: 'string' } } } },
            },
          },
          requestState: state,
        });
      ok(res, m!.id, { resultType: 'complete', content: [{ type: 'text', text: JSON.stringify([m!.params!.requestState, m!.params!.inputResponses]) }] });
    });
    const r = await runCli(['mcp', url, 'tools/call', 'book', '--no-login', '--json', '--input', '{"seat":{"action":"accept","content":{"seat":"A"}}}'], { env });
    expect(r.code, r.stderr).toBe(0);
    const [echoed, responses] = JSON.parse((JSON.parse(r.stdout) as { content: { text: string }[] }).content[0]!.text) as [string, unknown];
    expect(echoed).toBe(state);
    // SEP-1034: the field the answer leaves out takes the schema's default.
    expect(responses).toEqual({ seat: { action: 'accept', content: { seat: 'A', row: 7 } } });
    expect(calls[1]!.id).not.toBe(calls[0]!.id);

    const missing = await runCli(['mcp', url, 'tools/call', 'book', '--no-login'], { env, input: '' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('the MCP server asks for input that was not given: "seat" (elicitation/create): "Which seat?"');
    expect(missing.stderr).toContain('--input');
  });

  it('a tools/call whose result has isError: true prints the result and exits 1', async () => {
    const url = await serve((_req, m, res) => {
      if (m!.method === 'tools/list') return ok(res, m!.id, { tools: [{ name: 'fail', inputSchema: { type: 'object' } }] });
      ok(res, m!.id, { content: [{ type: 'text', text: 'the disk is full' }], isError: true });
    });
    const r = await runCli(['mcp', url, 'tools/call', 'fail', '--no-login', '--json'], { env });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ isError: true, content: [{ text: 'the disk is full' }] });
    expect(r.stderr).toContain('the tool answered isError: true');
  });

  it('server/discover as METHOD', async () => {
    const url = await serve((req, m, res) => ok(res, m!.id, { supportedVersions: ['2026-07-28'], capabilities: {}, serverInfo: { name: req.headers['mcp-method'], version: '1' } }));
    const r = await runCli(['mcp', url, 'server/discover', '--no-login', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ supportedVersions: ['2026-07-28'], serverInfo: { name: 'server/discover' } });
  });
});

describe('the earlier revisions', () => {
  it('falls back to initialize when a server of an earlier revision refuses the 2026-07-28 request, and says why', async () => {
    const seen: Message[] = [];
    const url = await serve(legacyServer((m, res) => ok(res, m.id, { tools: [] }), seen));
    const r = await runCli(['mcp', url, '--no-login'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('HTTP 400 to a 2026-07-28 request without a 2026-07-28 error: the server speaks an earlier revision; falling back to the initialize handshake');
    expect(r.stderr).toContain('protocol version 2025-11-25');
    expect(seen.map((m) => m.method)).toEqual(['tools/list', 'initialize', 'notifications/initialized', 'tools/list']);
  });

  it('--mcp-version forces one revision: no 2026-07-28 request, the version offered in initialize; a bad value is exit 2', async () => {
    const seen: Message[] = [];
    const url = await serve(legacyServer((m, res) => ok(res, m.id, { tools: [] }), seen));
    const r = await runCli(['mcp', url, '--no-login', '--mcp-version', '2025-06-18'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(seen[0]).toMatchObject({ method: 'initialize', params: { protocolVersion: '2025-06-18' } });
    const bad = await runCli(['mcp', url, '--no-login', '--mcp-version', '2024-01-01'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--mcp-version "2024-01-01" is not a revision oauthctl speaks');

    // Forced to 2026-07-28, the same server's refusal is reported, not a fallback.
    const forced = await runCli(['mcp', url, '--no-login', '--mcp-version', '2026-07-28'], { env });
    expect(forced.code).toBe(1);
    expect(forced.stderr).toContain('answered HTTP 400 to tools/list: JSON-RPC error -32000: Bad Request: Server not initialized');
  });

  it("answers the server's elicitation/create from --input under that key, on the call's stream", async () => {
    let answered: unknown;
    let call: { id?: number; stream: ServerResponse } | undefined;
    const legacy = legacyServer((m, res) => {
      // The GET stream oauthctl listens on meanwhile: this server has none.
      if (m.method === 'GET') return json(res, 405, {});
      call = { id: m.id, stream: res };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const ask = {
        jsonrpc: '2.0',
        id: 'e1',
        method: 'elicitation/create',
        params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Bob' } } } },
      };
      res.write(`data: ${JSON.stringify(ask)}\n\n`);
    });
    const url = await serve((req, m, res) => {
      // The client's response to the elicitation: the call's result follows on its stream.
      if (m !== undefined && !('method' in m)) {
        answered = (m as { result?: unknown }).result;
        res.writeHead(202).end();
        call?.stream.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: 'thanks' }] } })}\n\n`);
        return;
      }
      legacy(req, m, res);
    });
    const r = await runCli(['mcp', url, 'tools/call', 'hello', '--no-login', '--mcp-version', '2025-11-25', '--input', '{"elicitation/create":{"action":"accept"}}'], { env });
    expect(r.code, r.stderr).toBe(0);
    // SEP-1034: the default fills the content the answer left out.
    expect(answered).toEqual({ action: 'accept', content: { name: 'Bob' } });
  });
});

describe('event streams', () => {
  it('a response event ends the wait at once, though the server keeps the stream open with comments and notifications', async () => {
    const url = await serve(
      legacyServer((m, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } })}\n\n`);
        res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'kept-open' }] } })}\n\n`);
        const beat = setInterval(() => res.write(': keep-alive\n\n'), 20);
        res.on('close', () => clearInterval(beat));
      }),
    );
    const started = Date.now();
    const r = await runCli(['mcp', url, '--no-login', '--json', '--http-timeout', '120'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ tools: [{ name: 'kept-open' }] });
    // Well under the two-minute timeout: the answer ended the wait.
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('a stream that never answers is cut by --http-timeout', async () => {
    const url = await serve(
      legacyServer((_m, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const beat = setInterval(() => res.write(': still here\n\n'), 20);
        res.on('close', () => clearInterval(beat));
      }),
    );
    const r = await runCli(['mcp', url, '--no-login', '--http-timeout', '2'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/2 ?s|timed out|--http-timeout/);
  });

  it('a stream closed before its answer is resumed with a GET carrying Last-Event-ID, after the retry the server asked', async () => {
    let resumedWith: string | undefined;
    let closedAt = 0;
    let resumedAt = 0;
    let pendingId: number | undefined;
    const url = await serve(
      legacyServer((m, res, req) => {
        if (m.method === 'GET') {
          resumedWith = req.headers['last-event-id'] as string | undefined;
          resumedAt = Date.now();
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          return res.end(`id: e2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: pendingId, result: { tools: [{ name: 'resumed' }] } })}\n\n`);
        }
        pendingId = m.id;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('id: e1\nretry: 300\ndata: \n\n', () => (closedAt = Date.now()));
      }),
    );
    const r = await runCli(['mcp', url, '--no-login', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ tools: [{ name: 'resumed' }] });
    expect(resumedWith).toBe('e1');
    expect(resumedAt - closedAt).toBeGreaterThanOrEqual(250);
  });
});

describe('failures', () => {
  it("prints the server's own error text, escaped and bounded, and suggests --verbose only without it", async () => {
    const url = await serve((_req, _m, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`introspection failed: \u001b[31mno client authentication\u001b[0m ${'x'.repeat(5000)}`);
    });
    const r = await runCli(['mcp', url, '--no-login', '--mcp-version', '2026-07-28'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('answered HTTP 500 to tools/list: introspection failed: \\x1b[31mno client authentication');
    expect(r.stderr).not.toContain('\u001b[31m');
    expect(r.stderr.length).toBeLessThan(2000);
    expect(r.stderr).toContain('run with --verbose');
    const verbose = await runCli(['mcp', url, '--no-login', '--mcp-version', '2026-07-28', '--verbose'], { env });
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).not.toContain('run with --verbose');
  });

  it('a JSON-RPC error answer prints its message, escaped', async () => {
    const url = await serve((_req, m, res) => json(res, 200, { jsonrpc: '2.0', id: m!.id, error: { code: -32603, message: 'boom \u001b]0;owned\u0007' } }));
    const r = await runCli(['mcp', url, '--no-login'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('answered tools/list with JSON-RPC error -32603: boom');
    expect(r.stderr).not.toContain('\u001b]0;');
  });
});
