#!/usr/bin/env node
// The MCP conformance suite's client under test (`conformance client --command "node client.mjs"`): it
// maps the suite's MCP_CONFORMANCE_CONTEXT to `oauthctl mcp` flags and nothing else. Every decision of
// the authorization (where the metadata is, which scope, which client identity, how to authenticate)
// is oauthctl's own. Each scenario runs with a fresh state directory, so nothing is cached across them.
//
// The client lists the tools, then calls one in a second run: the second finds the first one's login
// cached, and a server that wants more scope for a call (auth/scope-step-up) gets a step-up.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The client's Client ID Metadata Document, given to every scenario: oauthctl uses it only where the
// authorization server announces client_id_metadata_document_supported (the suite's server never fetches it).
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

const serverUrl = process.argv[2];
if (!serverUrl) {
  console.error('usage: client.mjs SERVER_URL (run by the MCP conformance suite)');
  process.exit(2);
}
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'oauthctl.js');
const home = mkdtempSync(join(tmpdir(), 'oauthctl-conformance-'));

const flags = ['--headless', '--client-metadata-url', CLIENT_METADATA_URL];
if (context.client_id !== undefined) flags.push('--client-id', context.client_id);
if (context.client_secret !== undefined) flags.push('--client-secret', context.client_secret);
if (context.private_key_pem !== undefined) {
  const key = join(home, 'client-key.pem');
  writeFileSync(key, context.private_key_pem, { mode: 0o600 });
  flags.push('--signing-key', key, '--auth-method', 'private_key_jwt');
}
// A context with client credentials and no user: the client credentials grant.
if ((context.client_secret !== undefined || context.private_key_pem !== undefined) && context.idp_id_token === undefined && /client-credentials/.test(context.name ?? '')) {
  flags.push('--client-credentials');
}
if (context.idp_id_token !== undefined) {
  flags.push('--id-token', context.idp_id_token, '--idp-client-id', context.idp_client_id);
  if (context.idp_token_endpoint !== undefined) flags.push('--idp-token-endpoint', context.idp_token_endpoint);
  else if (context.idp_issuer !== undefined) flags.push('--idp-issuer', context.idp_issuer);
  if (context.idp_client_secret !== undefined) flags.push('--idp-client-secret', context.idp_client_secret);
}

// --- authorization extensions (mcpauth) ---
// Workload identity federation (auth/wif-jwt-bearer): the workload's JWT for the JWT bearer grant.
if (context.valid_jwt !== undefined) flags.push('--assertion', context.valid_jwt);
// --- end of the authorization extensions ---

const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state'), XDG_CACHE_HOME: join(home, 'cache'), NO_COLOR: '1' };
const run = (args) => spawnSync(process.execPath, [cli, 'mcp', serverUrl, ...args, ...flags, '--token-store', 'file'], { env, stdio: 'inherit' }).status ?? 1;
let code;
try {
  code = run([]);
  if (code === 0) code = run(['tools/call', 'test-tool']);
} finally {
  rmSync(home, { recursive: true, force: true });
}
process.exit(code);
