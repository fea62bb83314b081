#!/usr/bin/env node
// What mcp.bench.mjs compares `oauthctl mcp URL tools/list` with in 2026-07-28: the MCP SDK 2.x's own
// client, given the same token, listing the tools and printing them.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, token] = process.argv.slice(2);
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
console.log(JSON.stringify(await client.listTools()));
await client.close();
