#!/usr/bin/env node
// The load generator of bench/mock.bench.mjs: complete code+PKCE flows (GET /authorize -> 302 ->
// POST /token) over N keep-alive connections, each flow with its own code verifier and state, the
// redirect's state checked, the token response parsed; a warm-up, then a fixed duration.
// Run: node bench/load-generator.mjs ISSUER SECONDS   (env BENCH_CONCURRENCY, default 16)
// Prints `measuring` when the measured part starts, then {"flows","failures","seconds","firstFailure"}.
//
// It speaks HTTP through node:http, with a keep-alive agent of N sockets (one request at a time per
// loop), as oauthctl's own client does.
import { createHash, randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';

const REDIRECT_URI = 'http://127.0.0.1:8080/callback';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP_MS = 500;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** One request on the keep-alive agent: resolves to {status, headers, body}. */
function send(method, path, headers = {}, body = undefined) {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: issuer.hostname, port: Number(issuer.port), method, path, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const issuer = new URL(process.argv[2]);
const seconds = Number(process.argv[3]);
const prefix = issuer.pathname.replace(/\/$/, '');
const redirectUri = encodeURIComponent(REDIRECT_URI);
let flows = 0;
let failures = 0;
let firstFailure;
let stopAt = 0;

async function flow() {
  // A fresh PKCE pair (RFC 7636 section 4.1: 32 random octets, base64url) and state per flow.
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(16).toString('base64url');
  const query = `response_type=code&client_id=photo-cli&redirect_uri=${redirectUri}&state=${state}&scope=photo&code_challenge=${challenge}&code_challenge_method=S256`;
  const authorize = await send('GET', `${prefix}/authorize?${query}`);
  const location = authorize.status === 302 ? new URL(authorize.headers.location) : undefined;
  const code = location?.searchParams.get('code');
  if (!code || location.searchParams.get('state') !== state) return { authorize: authorize.status, location: authorize.headers.location, body: authorize.body };
  const form = `grant_type=authorization_code&code=${encodeURIComponent(code)}&redirect_uri=${redirectUri}&client_id=photo-cli&code_verifier=${verifier}`;
  const token = await send('POST', `${prefix}/token`, { 'content-type': 'application/x-www-form-urlencoded' }, form);
  const body = token.status === 200 ? JSON.parse(token.body) : undefined;
  return typeof body?.access_token === 'string' ? undefined : { token: token.status, body: token.body };
}

async function loop() {
  while (performance.now() < stopAt) {
    const failure = await flow();
    if (failure === undefined) flows++;
    else {
      failures++;
      firstFailure ??= failure;
    }
  }
}

const loops = Array.from({ length: CONCURRENCY });
try {
  // Warm-up (JIT on both sides, connections), then a fixed duration.
  stopAt = performance.now() + WARMUP_MS;
  await Promise.all(loops.map(loop));
  flows = 0;
  failures = 0;
  process.stdout.write('measuring\n');
  const started = performance.now();
  stopAt = started + seconds * 1000;
  await Promise.all(loops.map(loop));
  const elapsed = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ flows, failures, seconds: elapsed, firstFailure })}\n`);
} finally {
  agent.destroy();
}
