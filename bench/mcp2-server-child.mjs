#!/usr/bin/env node
// The 2026-07-28 MCP server of mcp.bench.mjs, in a process of its own: the MCP SDK 2.x's createMcpHandler
// (2026-07-28, and the earlier revisions statelessly) behind its requireBearerAuth, on loopback through
// node:http. It takes the one token given in BENCH_TOKEN. Prints its URL; GET /server-ms answers the
// time it spent handling MCP requests since the last ask.
import { createServer } from 'node:http';
import { createMcpHandler, McpServer, requireBearerAuth } from '@modelcontextprotocol/server';

const token = process.env.BENCH_TOKEN;
let spent = 0;
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool('echo', { description: 'says it back' }, () => ({ content: [{ type: 'text', text: 'hi' }] }));
  return server;
});
const gate = requireBearerAuth({
  verifier: {
    verifyAccessToken: async (t) => {
      if (t !== token) throw new Error('unknown token');
      return { token: t, clientId: 'bench', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
    },
  },
});
const http = createServer(async (req, res) => {
  if (req.url === '/server-ms') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ms: spent }));
    spent = 0;
    return;
  }
  const start = process.hrtime.bigint();
  res.on('finish', () => (spent += Number(process.hrtime.bigint() - start) / 1e6));
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const request = new Request(new URL(req.url, 'http://127.0.0.1'), { method: req.method, headers, ...(req.method === 'POST' && { body: Buffer.concat(chunks) }) });
  const auth = await gate(request);
  const response = auth instanceof Response ? auth : await handler.fetch(request, { authInfo: auth });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body !== null) for await (const chunk of response.body) res.write(chunk);
  res.end();
});
http.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${http.address().port}/mcp`));
