#!/usr/bin/env node
// The MCP server of mcp.bench.mjs, in a process of its own: the MCP SDK's McpServer over its Streamable
// HTTP transport (stateless), behind the SDK's requireBearerAuth, on loopback. It takes the one token
// given in BENCH_TOKEN. Prints its URL, then `server-ms N` lines on request: GET /server-ms answers the
// time it spent handling MCP requests since the last ask (the server's own time in the figures).
import { createServer } from 'node:http';
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

const token = process.env.BENCH_TOKEN;
let spent = 0;
const app = express();
app.get('/server-ms', (_req, res) => {
  res.json({ ms: spent });
  spent = 0;
});
app.post(
  '/mcp',
  (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => (spent += Number(process.hrtime.bigint() - start) / 1e6));
    next();
  },
  express.json(),
  requireBearerAuth({
    verifier: {
      verifyAccessToken: async (t) => {
        if (t !== token) throw new InvalidTokenError('unknown token');
        return { token: t, clientId: 'bench', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
      },
    },
  }),
  async (req, res) => {
    const server = new McpServer({ name: 'bench', version: '1.0.0' });
    server.registerTool('echo', { description: 'says it back' }, () => ({ content: [{ type: 'text', text: 'hi' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  },
);
const http = createServer(app);
http.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${http.address().port}/mcp`));
