#!/usr/bin/env node
// `oauthctl trace FILE --html OUT` on a hostile HAR (a 2 MB response body of `eyJ-` repeated, then one
// of `eyJhbGci.` repeated, where a backtracking JWT pattern spends seconds) against a HAR of the same
// size with a plain body, measured in the same run: CPU time of the process, median of 5 each. The
// hostile one must stay within 1.5x of the plain one (the JWT scanner is linear: src/output/jwt-scan.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'oauthctl.js');
const cpuUsage = join(root, 'bench', 'cpu-usage.cjs');
const dir = mkdtempSync(join(tmpdir(), 'oauthctl-bench-trace-'));

function har(body, second = body) {
  const entry = {
    startedDateTime: new Date(0).toISOString(),
    time: 1,
    request: { method: 'GET', url: 'http://127.0.0.1:9/api', httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      headers: [],
      cookies: [],
      content: { size: body.length, mimeType: 'text/plain', text: body },
      redirectURL: '',
      headersSize: -1,
      bodySize: body.length,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
    _oauthctl: { actor: 'client', step: 'resource' },
  };
  return JSON.stringify({
    log: {
      version: '1.2',
      creator: { name: 'bench', version: '1' },
      entries: [entry, { ...entry, response: { ...entry.response, content: { ...entry.response.content, size: second.length, text: second } } }],
    },
  });
}

const SIZE = 2 * 1024 * 1024;
const cases = {
  plain: har('x'.repeat(SIZE)),
  hostile: har('eyJ-'.repeat(SIZE / 4), 'eyJhbGci.'.repeat(Math.floor(SIZE / 9))),
};
for (const [name, text] of Object.entries(cases)) writeFileSync(join(dir, `${name}.har`), text);

function cpuMs(name) {
  const r = spawnSync(process.execPath, ['--require', cpuUsage, bin, 'trace', join(dir, `${name}.har`), '--html', join(dir, `${name}.html`)], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (r.status !== 0) throw new Error(`trace --html ${name}: exit ${r.status}: ${r.stderr}`);
  return Number(/cpu-ms ([\d.]+)/.exec(r.stderr)?.[1]);
}

const runs = { plain: [], hostile: [] };
for (let i = 0; i < 5; i++) for (const name of i % 2 ? ['hostile', 'plain'] : ['plain', 'hostile']) runs[name].push(cpuMs(name));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const plain = median(runs.plain);
const hostile = median(runs.hostile);
rmSync(dir, { recursive: true, force: true });
console.log(`trace --html, 2 x 2 MB bodies, CPU ms (median of 5): plain ${plain.toFixed(0)}, hostile (eyJ- / eyJhbGci. repeated) ${hostile.toFixed(0)}: ${(hostile / plain).toFixed(2)}x`);
if (hostile > plain * 1.5) {
  console.log('FAIL: the hostile HAR costs more than 1.5x the plain one');
  process.exit(1);
}
