#!/usr/bin/env node
// Runs every auth/* client scenario of the MCP conformance suite (@modelcontextprotocol/conformance,
// which needs Node 22 or later: run this file with that Node) against `oauthctl mcp` through client.mjs.
// Each scenario runs on its own (`conformance client --scenario`), so that a client that exits with an
// error or times out fails it, as well as any failed or warned check. No expected failures.
// The suite writes results/ under the working directory: run this from a temporary directory
// (`.ci/run` does; results/ is gitignored too). Exit 0 only when every scenario passed.
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const suite = join(here, '..', '..', 'node_modules', 'mcp-conformance-0-1', 'dist', 'index.js');
const client = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(here, 'client.mjs'))}`;
const PARALLEL = Number(process.env.MCP_CONFORMANCE_PARALLEL) || 2;

const listed = spawnSync(process.execPath, [suite, 'list'], { encoding: 'utf8' });
const scenarios = [...`${listed.stdout}${listed.stderr}`.matchAll(/^\s*- (auth\/\S+)/gm)].map((m) => m[1]);
if (scenarios.length === 0) {
  console.error('the conformance suite lists no auth/* client scenario');
  process.exit(1);
}

function runScenario(name) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [suite, 'client', '--command', client, '--scenario', name, '-o', 'results'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ name, passed: code === 0, output }));
  });
}

const results = [];
const queue = [...scenarios];
await Promise.all(
  Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const result = await runScenario(name);
      results.push(result);
      console.log(`${result.passed ? 'pass' : 'FAIL'} ${name}`);
      if (!result.passed) console.log(result.output.replace(/^/gm, '    '));
    }
  }),
);
const passed = results.filter((r) => r.passed).length;
console.log(`MCP conformance auth/* client scenarios: ${passed}/${scenarios.length} passed`);
process.exit(passed === scenarios.length ? 0 : 1);
