// `oauthctl mcp` when the server ends its session (MCP basic/transports, Session Management): a 404 to
// a request that carried `Mcp-Session-Id` is answered with a new initialize that carries none, once.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { homeEnv, runCli } from '../../helpers/cli.js';

interface Seen {
  method: string;
  session: string | undefined;
  status: number;
}

let server: Server | undefined;
let home: string;
let env: Record<string, string>;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-mcp-session-'));
  env = homeEnv(home);
});
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
  rmSync(home, { recursive: true, force: true });
});

/**
 * An MCP server with sessions that needs no token. `alive(id, method)` says whether session `id` still
 * stands when `method` comes with it; a session that does not is answered 404, as the specification says.
 */
async function sessionServer(alive: (id: string, method: string) => boolean): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  let sessions = 0;
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      const message = JSON.parse(body) as { id?: number; method: string };
      const session = req.headers['mcp-session-id'] as string | undefined;
      const answer = (status: number, value?: unknown, headers: Record<string, string> = {}) => {
        seen.push({ method: message.method, session, status });
        res.writeHead(status, { ...(value !== undefined && { 'content-type': 'application/json' }), ...headers }).end(value === undefined ? undefined : JSON.stringify(value));
      };
      if (message.method === 'initialize') {
        const id = `s${++sessions}`;
        return answer(200, { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'x', version: '1' } } }, { 'mcp-session-id': id });
      }
      if (session === undefined || !alive(session, message.method)) return answer(404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
      if (message.id === undefined) return answer(202);
      answer(200, { jsonrpc: '2.0', id: message.id, result: { tools: [{ name: `from ${session}` }] } });
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen };
}

describe('mcp when the server ends its session', () => {
  it('a 404 to the method starts a new session, without the old id, and sends the method again in it', async () => {
    const { url, seen } = await sessionServer((id, method) => !(id === 's1' && method === 'tools/list'));
    const r = await runCli(['mcp', url, '--mcp-version', '2025-11-25'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ tools: [{ name: 'from s2' }] });
    expect(r.stderr).toContain('HTTP 404 to tools/list with the session id: the session has ended, starting a new one (basic/transports, Session Management)');
    expect(seen).toEqual([
      { method: 'initialize', session: undefined, status: 200 },
      { method: 'notifications/initialized', session: 's1', status: 202 },
      { method: 'tools/list', session: 's1', status: 404 },
      { method: 'initialize', session: undefined, status: 200 },
      { method: 'notifications/initialized', session: 's2', status: 202 },
      { method: 'tools/list', session: 's2', status: 200 },
    ]);
  });

  it('a 404 to notifications/initialized starts a new session before the method', async () => {
    const { url, seen } = await sessionServer((id) => id !== 's1');
    const r = await runCli(['mcp', url, '--mcp-version', '2025-11-25'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ tools: [{ name: 'from s2' }] });
    expect(seen.map((s) => `${s.method} ${s.session ?? '-'} ${s.status}`)).toEqual([
      'initialize - 200',
      'notifications/initialized s1 404',
      'initialize - 200',
      'notifications/initialized s2 202',
      'tools/list s2 200',
    ]);
  });

  it('a server that forgets every session is not chased: one new session, then one line and exit 1', async () => {
    const { url, seen } = await sessionServer((_id, method) => method !== 'tools/list');
    const r = await runCli(['mcp', url, '--mcp-version', '2025-11-25'], { env });
    expect(r.code).toBe(1);
    expect(seen.filter((s) => s.method === 'initialize')).toHaveLength(2);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^oauthctl: error: the MCP server answered HTTP 404 to tools\/list/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
