#!/usr/bin/env node
// What mcp.bench.mjs compares `oauthctl mcp URL tools/list` with: the MCP SDK's own client, given the
// same token, doing the same (initialize, notifications/initialized, tools/list) and printing the result.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token] = process.argv.slice(2);
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
console.log(JSON.stringify(await client.listTools()));
await client.close();
