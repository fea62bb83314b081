#!/usr/bin/env node
// The mock authorization server under load, next to baselines measured in the same run:
// 1. complete code+PKCE flows per second (GET /authorize -> 302 -> POST /token) through --auto-login,
//    with N concurrent loops over keep-alive connections, against oauth2-mock-server 8 (its
//    authorize + token) and against a bare node http server that redirects and answers without checks;
// 2. time to ready of `oauthctl serve-mock --port 0 --json` (until the JSON line) against `node -e 0`;
// 3. heap after GC before and after 100,000 flows (expired and used codes are swept, stores bounded).
// Run: npm run build && node --expose-gc bench/mock.bench.mjs   (env BENCH_SECONDS, BENCH_CONCURRENCY)
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'oauthctl.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const MEMORY_FLOWS = Number(process.env.BENCH_MEMORY_FLOWS ?? 100_000);
const REDIRECT_URI = 'http://127.0.0.1:8080/callback';

const BARE = `
import { createServer } from 'node:http';
let n = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/authorize')) {
    const q = new URL(req.url, 'http://x').searchParams;
    res.writeHead(302, { Location: q.get('redirect_uri') + '?code=c' + (n++) + '&state=' + encodeURIComponent(q.get('state')) });
    res.end();
  } else {
    req.resume();
    req.on('end', () => {
      const body = JSON.stringify({ access_token: 'bare-token-' + (n++), token_type: 'Bearer', expires_in: 3600, scope: 'photo' });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  }
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ issuer: 'http://127.0.0.1:' + server.address().port })));
`;

const OAUTH2_MOCK_SERVER = `
import { OAuth2Server } from 'oauth2-mock-server';
const server = new OAuth2Server();
await server.issuer.keys.generate(process.env.ALG);
await server.start(0, '127.0.0.1');
console.log(JSON.stringify({ issuer: server.issuer.url }));
`;

function startChild(args, env = {}) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, ...env } });
  const lines = createInterface({ input: child.stdout });
  return once(lines, 'line').then(([line]) => ({ child, issuer: JSON.parse(line).issuer }));
}

function pkcePair() {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** N loops of authorize -> token for `seconds`; returns flows per second. */
async function flowsPerSecond(issuer, seconds) {
  const url = new URL(issuer);
  const pool = new Pool(url.origin, { connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 10_000 });
  const prefix = url.pathname.replace(/\/$/, '');
  let flows = 0;
  let failures = 0;
  let stopAt = 0;
  const loop = async () => {
    const { verifier, challenge } = pkcePair();
    const authorize = `${prefix}/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'photo-cli', redirect_uri: REDIRECT_URI, state: 'bench-state-0123456789', scope: 'photo', code_challenge: challenge, code_challenge_method: 'S256' })}`;
    while (performance.now() < stopAt) {
      const a = await pool.request({ path: authorize, method: 'GET' });
      await a.body.dump();
      const code = new URL(String(a.headers.location)).searchParams.get('code');
      const t = await pool.request({
        path: `${prefix}/token`,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: code ?? '', redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: verifier }).toString(),
      });
      const body = await t.body.json();
      if (t.statusCode === 200 && body.access_token) flows++;
      else failures++;
    }
  };
  // Warm up (JIT, connections, key generation), then measure.
  stopAt = performance.now() + 700;
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  flows = 0;
  const started = performance.now();
  stopAt = started + seconds * 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  if (failures) throw new Error(`${failures} flows failed against ${issuer}`);
  return flows / elapsed;
}

async function measure(name, args, env) {
  const { child, issuer } = await startChild(args, env);
  try {
    return await flowsPerSecond(issuer, SECONDS);
  } catch (err) {
    console.log(`${name}: ${err.message}`);
    return NaN;
  } finally {
    child.kill('SIGTERM');
    await once(child, 'close');
  }
}

const fmt = (n) => (Number.isFinite(n) ? n.toFixed(0).padStart(6) : '   n/a');
const ratio = (a, b) => (a / b).toFixed(2);
const verdict = (ok) => (ok ? 'ok' : 'MISSED');

async function throughput() {
  console.log(`flows/s (authorize -> 302 -> token, code + PKCE S256, ${CONCURRENCY} loops over keep-alive, ${SECONDS} s each)`);
  const bare = await measure('bare', ['--input-type=module', '-e', BARE]);
  const rows = [];
  for (const alg of ['ES256', 'RS256']) {
    const config = alg === 'ES256' ? ['--config', 'fixtures/mock/fast.json'] : [];
    const ours = await measure(`oauthctl ${alg}`, [cli, 'serve-mock', '--port', '0', '--json', '--quiet', '--auto-login', 'alice', ...config]);
    const theirs = await measure(`oauth2-mock-server ${alg}`, ['--input-type=module', '-e', OAUTH2_MOCK_SERVER], { ALG: alg });
    rows.push({ alg, ours, theirs });
  }
  console.log(`  bare node http server (no checks, no signing)   ${fmt(bare)}`);
  for (const { alg, ours, theirs } of rows) {
    console.log(`  oauthctl serve-mock, ${alg} access tokens         ${fmt(ours)}   ${ratio(ours, theirs)}x oauth2-mock-server, ${ratio(ours, bare)}x bare`);
    console.log(`  oauth2-mock-server 8, ${alg}                      ${fmt(theirs)}`);
  }
  const es = rows[0];
  console.log(`goal (ES256, signing_alg from fixtures/mock/fast.json): >= 3x oauth2-mock-server: ${ratio(es.ours, es.theirs)}x ${verdict(es.ours >= 3 * es.theirs)}; >= 0.5x bare: ${ratio(es.ours, bare)}x ${verdict(es.ours >= 0.5 * bare)}`);
  const rs = rows[1];
  console.log(`default RS256: ${ratio(rs.ours, rs.theirs)}x oauth2-mock-server (${verdict(rs.ours >= 3 * rs.theirs)} for 3x), ${ratio(rs.ours, bare)}x bare (an RSA-2048 signature alone costs more than a bare flow)`);
}

async function timeToReady() {
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const runs = 11;
  const node = [];
  const ready = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    const bare = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await once(bare, 'close');
    node.push(performance.now() - t);
    t = performance.now();
    const child = spawn(process.execPath, [cli, 'serve-mock', '--port', '0', '--json', '--quiet'], { stdio: ['ignore', 'pipe', 'ignore'] });
    await once(createInterface({ input: child.stdout }), 'line');
    ready.push(performance.now() - t);
    child.kill('SIGTERM');
    await once(child, 'close');
  }
  const [n, r] = [median(node), median(ready)];
  console.log(`time to ready (median of ${runs}): serve-mock --port 0 --json ${r.toFixed(0)} ms, node -e 0 ${n.toFixed(0)} ms: ${ratio(r, n)}x (goal <= 2x: ${verdict(r <= 2 * n)})`);
}

const MEMORY_CHILD = `
import { createMockServer } from './dist/mock/index.js';
import { Pool } from 'undici';
import { createHash, randomBytes } from 'node:crypto';
const server = await createMockServer({ signing_alg: 'ES256' }, { autoLogin: 'alice' });
const pool = new Pool(server.issuer, { connections: 8 });
const verifier = randomBytes(48).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');
const authorize = '/authorize?' + new URLSearchParams({ response_type: 'code', client_id: 'photo-cli', redirect_uri: '${REDIRECT_URI}', state: 'memory', scope: 'photo offline_access', code_challenge: challenge, code_challenge_method: 'S256' });
async function flows(n) {
  let left = n;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (left-- > 0) {
      const a = await pool.request({ path: authorize, method: 'GET' });
      await a.body.dump();
      const code = new URL(a.headers.location).searchParams.get('code');
      const t = await pool.request({ path: '/token', method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: '${REDIRECT_URI}', client_id: 'photo-cli', code_verifier: verifier }).toString() });
      const body = await t.body.json();
      if (!body.access_token) throw new Error(JSON.stringify(body));
    }
  }));
}
const heap = () => { globalThis.gc(); globalThis.gc(); return process.memoryUsage().heapUsed / 1048576; };
await flows(25000);
const before = heap();
const started = performance.now();
await flows(${MEMORY_FLOWS});
const after = heap();
console.log(JSON.stringify({ before, after, seconds: (performance.now() - started) / 1000 }));
await pool.close();
await server.close();
`;

async function memory() {
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', MEMORY_CHILD], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(createInterface({ input: child.stdout }), 'line');
  await once(child, 'close');
  const { before, after, seconds } = JSON.parse(line);
  const growth = after - before;
  console.log(`heap after GC (offline_access: a code, a refresh token and a family per flow): ${before.toFixed(1)} MiB after a 25,000-flow warm-up, ${after.toFixed(1)} MiB after ${MEMORY_FLOWS.toLocaleString('en')} more flows (${seconds.toFixed(0)} s): ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MiB (goal: flat, within 5 MiB: ${verdict(Math.abs(growth) <= 5)})`);
}

await throughput();
await timeToReady();
await memory();
