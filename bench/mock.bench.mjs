#!/usr/bin/env node
// The mock authorization server under load, next to baselines measured in the same run:
// 1. complete code+PKCE flows per second (GET /authorize -> 302 -> POST /token) through --auto-login:
//    serve-mock with opaque access tokens, with ES256 JWTs and with RS256 JWTs (the default), against
//    oauth2-mock-server 8 (its authorize + token, same signing alg), against a bare node http server
//    that redirects and answers without checks or signing, and against that bare server plus one
//    signature per token with the same algorithm (the work every server that issues a JWT per flow
//    must do: the goal is >= 0.95x of it). Every server runs in its own child process;
//    the load generator (bench/load-generator.mjs: node:http with a keep-alive agent, N concurrent
//    loops, a fresh PKCE pair and state per flow) in another. Rounds are interleaved (each round
//    measures every server once, in rotating order) so that load noise on the machine hits all alike;
//    figures are medians of rounds. Where /proc is readable, each server's CPU time per flow is printed.
// 2. time to ready of `oauthctl serve-mock --port 0 --json` (until the JSON line) against `node -e 0`,
//    interleaved runs, medians;
// 3. what a test pays per fixture in library mode: create -> GET /jwks -> one code + PKCE flow with
//    openid (ID token) -> close, against oauth2-mock-server's in-process server doing the same with an
//    RS256 key, interleaved, medians (bench/fixture-child.mjs);
// 4. heap after GC before and after 100,000 flows, with JWT and with opaque access tokens, each time
//    once the codes and tokens of the flows before have expired and been swept (every store is also
//    bounded and refuses new work at its bound); the heap right after the flows is printed beside.
// Run: npm run build && node --expose-gc bench/mock.bench.mjs
// env: BENCH_SECONDS (per round and server, default 3), BENCH_ROUNDS (5), BENCH_CONCURRENCY (16),
//      BENCH_MEMORY_FLOWS (100000), BENCH_PARTS (throughput,fixture,ready,memory: the parts to run)
import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'oauthctl.js');
const loadGenerator = join(root, 'bench', 'load-generator.mjs');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const MEMORY_FLOWS = Number(process.env.BENCH_MEMORY_FLOWS ?? 100_000);
const REDIRECT_URI = 'http://127.0.0.1:8080/callback';

// The bare server: redirects with a code and answers the token request, without any checks. With
// SIGN=ES256 or SIGN=RS256 it also signs a JWT per token with that algorithm (no checks, no state):
// the floor of a server that signs.
const BARE = `
import { createServer } from 'node:http';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
const key = process.env.SIGN === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey : { key: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, dsaEncoding: 'ieee-p1363' };
const header = Buffer.from(JSON.stringify({ alg: process.env.SIGN, typ: 'at+jwt' })).toString('base64url');
let n = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/authorize')) {
    const q = new URL(req.url, 'http://x').searchParams;
    res.writeHead(302, { Location: q.get('redirect_uri') + '?code=c' + (n++) + '&state=' + encodeURIComponent(q.get('state')) });
    res.end();
  } else {
    req.resume();
    req.on('end', () => {
      let token = 'bare-token-' + (n++);
      if (process.env.SIGN) {
        const input = header + '.' + Buffer.from(JSON.stringify({ sub: 'alice', jti: randomUUID(), iat: Math.floor(Date.now() / 1000) })).toString('base64url');
        token = input + '.' + sign('sha256', Buffer.from(input), key).toString('base64url');
      }
      const body = JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600, scope: 'photo' });
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

/** utime + stime of a process in clock ticks (Linux), or undefined. */
function cpuTicks(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}
const TICK_US = 1e6 / 100; // USER_HZ is 100 on Linux

/** One round against one server: flows per second, and the server's CPU microseconds per flow. */
async function round(server, seconds = SECONDS) {
  const load = spawn(process.execPath, [loadGenerator, server.issuer, String(seconds)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_CONCURRENCY: String(CONCURRENCY) },
  });
  const lines = createInterface({ input: load.stdout });
  let before;
  let result;
  for await (const line of lines) {
    if (line === 'measuring') before = cpuTicks(server.child.pid);
    else result = JSON.parse(line);
  }
  const after = cpuTicks(server.child.pid);
  if (result.failures) throw new Error(`${server.name}: ${result.failures} flows failed, first: ${JSON.stringify(result.firstFailure)}`);
  const cpu = before !== undefined && after !== undefined && result.flows ? ((after - before) * TICK_US) / result.flows : NaN;
  return { rate: result.flows / result.seconds, cpu };
}

/** CPU microseconds of one JWS signature (a 400-byte signing input), measured here. */
function signatureCost(alg) {
  const key = alg === 'ES256' ? { key: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, dsaEncoding: 'ieee-p1363' } : generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const input = Buffer.alloc(400, 'a');
  const n = alg === 'ES256' ? 2000 : 300;
  for (let i = 0; i < n / 10; i++) sign('sha256', input, key);
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) sign('sha256', input, key);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (n, w = 6) => (Number.isFinite(n) ? n.toFixed(0).padStart(w) : 'n/a'.padStart(w));
const ratio = (a, b) => (a / b).toFixed(2);
const verdict = (ok) => (ok ? 'ok' : 'MISSED');

// The mock under load keeps every code and token it issues until it expires, up to its stores' bounds
// (200,000 access tokens), then refuses new work (503) rather than forget security state. At 10,000 and
// more flows/s the default lifetimes (an hour) would fill them within a run: codes and tokens live 5 s here.
const configDir = mkdtempSync(join(tmpdir(), 'oauthctl-bench-'));
process.on('exit', () => rmSync(configDir, { recursive: true, force: true }));
let configs = 0;
function loadConfig(input) {
  const file = join(configDir, `mock-${++configs}.json`);
  writeFileSync(file, JSON.stringify({ ...input, lifetimes: { code: 5, access_token: 5, refresh_token: 5 } }));
  return file;
}

async function throughput() {
  const mock = (input) => [cli, 'serve-mock', '--port', '0', '--json', '--quiet', '--auto-login', 'alice', '--config', loadConfig(input)];
  const node = (source) => ['--input-type=module', '-e', source];
  const specs = [
    { name: 'bare node http server (no checks, no signing)', key: 'bare', args: node(BARE) },
    { name: 'the bare server + one ES256 signature per token', key: 'bareES256', args: node(BARE), env: { SIGN: 'ES256' } },
    { name: 'the bare server + one RS256 signature per token', key: 'bareRS256', args: node(BARE), env: { SIGN: 'RS256' } },
    { name: 'oauthctl serve-mock, opaque access tokens', key: 'oursOpaque', args: mock({ access_token_format: 'opaque' }) },
    { name: 'oauthctl serve-mock, ES256 JWTs', key: 'oursES256', args: mock({ signing_alg: 'ES256' }) },
    { name: 'oauth2-mock-server 8, ES256 JWTs', key: 'theirsES256', args: node(OAUTH2_MOCK_SERVER), env: { ALG: 'ES256' } },
    { name: 'oauthctl serve-mock, RS256 JWTs (the default)', key: 'oursRS256', args: mock({ signing_alg: 'RS256' }) },
    { name: 'oauth2-mock-server 8, RS256 JWTs', key: 'theirsRS256', args: node(OAUTH2_MOCK_SERVER), env: { ALG: 'RS256' } },
  ];
  console.log(`flows/s (authorize -> 302 -> token, code + PKCE S256, a fresh verifier and state per flow, ${CONCURRENCY} loops over keep-alive;`);
  console.log(`  each server in its own process, the load generator in another; an unmeasured warm-up round per server, then ${ROUNDS} interleaved
  rounds of ${SECONDS} s per server, each after a warm-up; medians; server CPU per flow from /proc)`);
  const servers = [];
  try {
    for (const spec of specs) servers.push({ ...spec, ...(await startChild(spec.args, spec.env)), rates: [], cpus: [] });
    // An unmeasured round each first: every server's JIT warm, keys made, modules loaded.
    for (const server of servers) await round(server, 1);
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate the order each round, so that no server always runs first or last.
      for (let i = 0; i < servers.length; i++) {
        const server = servers[(i + r) % servers.length];
        const { rate, cpu } = await round(server);
        server.rates.push(rate);
        server.cpus.push(cpu);
      }
    }
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
    await Promise.all(servers.map((s) => (s.child.exitCode === null ? once(s.child, 'close') : undefined)));
  }
  const m = Object.fromEntries(servers.map((s) => [s.key, { rate: median(s.rates), cpu: median(s.cpus), all: s.rates }]));
  for (const s of servers) {
    const { rate, cpu, all } = m[s.key];
    console.log(`  ${s.name.padEnd(58)} ${fmt(rate)} flows/s  ${fmt(cpu, 4)} us CPU/flow   rounds: ${all.map((x) => x.toFixed(0)).join(' ')}`);
  }
  console.log(`  for scale: one signature with node:crypto on a cached key costs ${signatureCost('ES256').toFixed(0)} us CPU (ES256), ${signatureCost('RS256').toFixed(0)} us (RS256, 2048-bit)`);
  const bare = m.bare.rate;
  for (const alg of ['ES256', 'RS256']) {
    const ours = m[`ours${alg}`].rate;
    const theirs = m[`theirs${alg}`].rate;
    console.log(`goal >= 3x oauth2-mock-server, ${alg} JWTs on both: ${ratio(ours, theirs)}x ${verdict(ours >= 3 * theirs)}`);
  }
  for (const alg of ['ES256', 'RS256']) {
    const ours = m[`ours${alg}`].rate;
    const ceiling = m[`bare${alg}`].rate;
    // Sessions and logout must not tax the flows that do not use them.
    console.log(`goal >= 0.95x the bare server + one ${alg} signature per token: ${ratio(ours, ceiling)}x ${verdict(ours >= 0.95 * ceiling)}`);
  }
  console.log(
    `  (for scale, against the bare server with no signing: opaque access tokens ${ratio(m.oursOpaque.rate, bare)}x, ES256 JWTs ${ratio(m.oursES256.rate, bare)}x, RS256 JWTs ${ratio(m.oursRS256.rate, bare)}x;`,
  );
  console.log(`   the bare server + one signature per token, nothing else, reaches ${ratio(m.bareES256.rate, bare)}x with ES256 and ${ratio(m.bareRS256.rate, bare)}x with RS256)`);
}

async function fixtureCost() {
  const child = spawn(process.execPath, [join(root, 'bench', 'fixture-child.mjs')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(createInterface({ input: child.stdout }), 'line');
  await once(child, 'close');
  const { rounds, ours, oursRS256, theirs, cpu } = JSON.parse(line);
  console.log(`library mode, the cost a test pays per fixture (create -> GET /jwks -> code + PKCE flow with openid -> close; medians of ${rounds} interleaved rounds,`);
  console.log('  wall time, and the CPU time of the process beside it):');
  for (const [key, name, wall] of [
    ['ours', 'createMockServer() (default: ES256)', ours],
    ['oursRS256', "createMockServer({ signing_alg: 'RS256' })", oursRS256],
    ['theirs', 'oauth2-mock-server 8, in-process, RS256 key', theirs],
  ]) {
    console.log(`  ${name.padEnd(46)} ${wall.toFixed(1).padStart(7)} ms  ${cpu[key].toFixed(1).padStart(7)} ms CPU`);
  }
  console.log(`goal <= 5 ms with the default configuration: ${ours.toFixed(1)} ms ${verdict(ours <= 5)}`);
  console.log(`goal <= 0.2x oauth2-mock-server: ${ratio(ours, theirs)}x ${verdict(ours <= 0.2 * theirs)}`);
}

async function timeToReady() {
  const runs = Number(process.env.BENCH_READY_RUNS ?? 15);
  // A plain environment for both: a NODE_EXTRA_CA_CERTS bundle parsed at each start would swell the baseline and flatter the ratio.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const bare = async () => {
    const t = performance.now();
    await once(spawn(process.execPath, ['-e', '0'], { stdio: 'ignore', env }), 'close');
    return performance.now() - t;
  };
  const mock = async () => {
    const t = performance.now();
    const child = spawn(process.execPath, [cli, 'serve-mock', '--port', '0', '--json', '--quiet'], { stdio: ['ignore', 'pipe', 'ignore'], env });
    await once(createInterface({ input: child.stdout }), 'line');
    const ms = performance.now() - t;
    child.kill('SIGTERM');
    await once(child, 'close');
    return ms;
  };
  await bare();
  await mock(); // warm the file system cache
  const node = [];
  const ready = [];
  for (let i = 0; i < runs; i++) {
    // Interleaved, alternating which goes first.
    if (i % 2) {
      node.push(await bare());
      ready.push(await mock());
    } else {
      ready.push(await mock());
      node.push(await bare());
    }
  }
  const [n, r] = [median(node), median(ready)];
  console.log(
    `time to ready (median of ${runs} interleaved runs): serve-mock --port 0 --json ${r.toFixed(0)} ms (until its JSON line), node -e 0 ${n.toFixed(0)} ms: ${ratio(r, n)}x (goal <= 2x: ${verdict(r <= 2 * n)})`,
  );
}

const MEMORY_CHILD = `
import { createMockServer } from './dist/mock/index.js';
import { Pool } from 'undici';
import { createHash, randomBytes } from 'node:crypto';
// Short lifetimes (codes 5 s, tokens 1 s), so that codes and tokens expire about as fast as they are
// made and the sweep keeps up: with the defaults (a refresh token lives a day) live state grows until
// the stores' bounds, where new work gets 503 (see the README's limits).
const server = await createMockServer({ signing_alg: 'ES256', access_token_format: process.env.FORMAT, lifetimes: { code: 5, access_token: 1, refresh_token: 1 } }, { autoLogin: 'alice' });
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
// Until what the flows left has expired (codes live 5 s) and the once-a-second sweep has dropped it.
const settle = () => new Promise((resolve) => setTimeout(resolve, 7000));
await flows(25000);
await settle();
const before = heap();
const started = performance.now();
await flows(${MEMORY_FLOWS});
const seconds = (performance.now() - started) / 1000;
const live = heap();
await settle();
const after = heap();
console.log(JSON.stringify({ before, live, after, seconds }));
await pool.close();
await server.close();
`;

async function memory(format, stored) {
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', MEMORY_CHILD], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, FORMAT: format } });
  const [line] = await once(createInterface({ input: child.stdout }), 'line');
  await once(child, 'close');
  const { before, live, after, seconds } = JSON.parse(line);
  const growth = after - before;
  console.log(
    `heap after GC, ${format} access tokens (${stored} per flow, codes living 5 s, tokens 1 s), each time once that had expired: ${before.toFixed(1)} MiB after a 25,000-flow warm-up, ${after.toFixed(1)} MiB after ${MEMORY_FLOWS.toLocaleString('en')} more flows (${seconds.toFixed(0)} s): ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MiB (goal: flat, within 5 MiB: ${verdict(Math.abs(growth) <= 5)});`,
  );
  console.log(`  right after the last flow, with the last seconds' codes and tokens still live: ${live.toFixed(1)} MiB`);
}

const parts = (process.env.BENCH_PARTS ?? 'throughput,fixture,ready,memory').split(',');
if (parts.includes('throughput')) await throughput();
if (parts.includes('fixture')) await fixtureCost();
if (parts.includes('ready')) await timeToReady();
if (parts.includes('memory')) {
  await memory('jwt', 'offline_access: a code, a refresh token, a family and its access token');
  await memory('opaque', 'a code, an access token, a refresh token, a family and its access token');
}
