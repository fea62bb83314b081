#!/usr/bin/env node
// What mcp.bench.mjs compares `oauthctl mcp URL tools/list` with in 2026-07-28: the MCP SDK 2.x's own
// client, given the same token, listing the tools and printing them.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, token] = process.argv.slice(2);
// versionNegotiation auto: the 2.4 client otherwise opens with initialize; auto speaks 2026-07-28 to a server that does.
const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
console.log(JSON.stringify(await client.listTools()));
await client.close();
