#!/usr/bin/env node
// The MCP conformance suite's six authorization extension scenarios (not scored by the suite, asked
// for by those who deploy MCP) against `oauthctl mcp` through client.mjs: the client credentials grant
// with a JWT assertion and with client_secret_basic, enterprise-managed authorization (ID-JAG), DPoP
// with and without nonces (SEP-1932) and workload identity federation (RFC 7523 section 2.1). Node 22
// or later; run from a temporary directory (the suite writes results/ there). No expected failures:
// exit 0 only when every scenario passed.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const suite = join(here, '..', '..', 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const client = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(here, 'client.mjs'))}`;
const SCENARIOS = ['auth/client-credentials-jwt', 'auth/client-credentials-basic', 'auth/enterprise-managed-authorization', 'auth/dpop', 'auth/dpop-nonce', 'auth/wif-jwt-bearer'];
const only = process.argv.slice(2);

function runScenario(name) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [suite, 'client', '--command', client, '--scenario', name, '-o', 'results'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ name, passed: code === 0 && !/WARNING|FAILURE/.test(output.split('Test Results:')[1] ?? ''), output }));
  });
}

let passed = 0;
const chosen = only.length > 0 ? SCENARIOS.filter((s) => only.includes(s)) : SCENARIOS;
for (const name of chosen) {
  const result = await runScenario(name);
  if (result.passed) passed++;
  console.log(`${result.passed ? 'pass' : 'FAIL'} ${name}`);
  if (!result.passed) console.log(result.output.replace(/^/gm, '    '));
}
console.log(`MCP conformance authorization extensions: ${passed}/${chosen.length} passed`);
process.exit(passed === chosen.length ? 0 : 1);
