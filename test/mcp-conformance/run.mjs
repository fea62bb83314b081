#!/usr/bin/env node
// Runs the MCP conformance suite's client scenarios (@modelcontextprotocol/conformance, which needs Node 22
// or later: run this file with that Node) against `oauthctl mcp` through client.mjs.
//
// The 0.2.0 suite: every client scenario the 2026-07-28 and the 2025-11-25 revisions require
// (`client --requirements R`), and the ones they run unscored (the auth extensions), each at its revision.
//
// Each scenario runs on its own (`conformance client --scenario`, at its revision with --force: the
// extensions are on no revision's timeline and would be skipped), so that a client that exits with an
// error or times out fails it, as well as any failed or warned check, or a skip. No expected failures. The suite
// writes results/ under the working directory: run this from a temporary directory (`.ci/run` does;
// results/ is gitignored too). Exit 0 only when every scenario passed.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, '..', '..', 'node_modules');
const client = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(here, 'client.mjs'))}`;
const PARALLEL = Number(process.env.MCP_CONFORMANCE_PARALLEL) || 2;
const suite = join(modules, '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** The client scenarios a revision's requirements file lists: required, and run unscored (leg: client). */
function requiredScenarios(revision) {
  const text = readFileSync(join(modules, '@modelcontextprotocol', 'conformance', 'requirements', `${revision}.yaml`), 'utf8');
  const required = (text.match(/^client:\n((?: {2}- .*\n)+)/m)?.[1] ?? '').match(/(?<=- ).+/g) ?? [];
  const unscored = [...text.matchAll(/- scenario: (\S+)\n\s+leg: client/g)].map((m) => m[1]);
  return [...required, ...unscored].map((name) => ({ name, revision }));
}

const scenarioList = () => [...requiredScenarios('2026-07-28'), ...requiredScenarios('2025-11-25')];

function runScenario({ name, revision }) {
  return new Promise((resolve) => {
    const args = [suite, 'client', '--command', client, '--scenario', name, '-o', 'results', '--spec-version', revision, '--force'];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ name: `${name} (${revision})`, passed: code === 0 && !/CLIENT TIMED OUT|Client timed out|^SKIPPED/m.test(output), output }));
  });
}

const scenarios = scenarioList();
if (scenarios.length === 0) {
  console.error('the conformance suite lists no client scenario');
  process.exit(1);
}
const results = [];
const queue = [...scenarios];
await Promise.all(
  Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const result = await runScenario(next);
      results.push(result);
      console.log(`${result.passed ? 'pass' : 'FAIL'} ${result.name}`);
      if (!result.passed) console.log(result.output.replace(/^/gm, '    '));
    }
  }),
);
const passed = results.filter((r) => r.passed).length;
console.log(`MCP conformance 2026-07-28 and 2025-11-25 client scenarios: ${passed}/${scenarios.length} passed`);
process.exit(passed === scenarios.length ? 0 : 1);
