#!/usr/bin/env node
// The load generator of bench/mock.bench.mjs: complete code+PKCE flows (GET /authorize -> 302 ->
// POST /token) over N keep-alive connections, each flow with its own code verifier and state, the
// redirect's state checked, the token response parsed; a warm-up, then a fixed duration.
// Run: node bench/load-generator.mjs ISSUER SECONDS   (env BENCH_CONCURRENCY, default 16)
// Prints `measuring` when the measured part starts, then {"flows","failures","seconds","firstFailure"}.
//
// It speaks HTTP/1.1 on plain sockets (one request at a time per connection) rather than through an
// HTTP client library: a flow costs it about a third of what undici's Pool costs, so that a bare
// server is measured at its own limit, not at the load generator's (on 2 cores the two share them).
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';

const REDIRECT_URI = 'http://127.0.0.1:8080/callback';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP_MS = 500;
const HEAD_END = Buffer.from('\r\n\r\n');

/** One keep-alive connection: send a request, resolve to {status, headers, body} (Content-Length or chunked). */
function connection(origin) {
  const socket = connect({ host: origin.hostname, port: Number(origin.port), noDelay: true });
  let buffer = Buffer.alloc(0);
  let waiting;
  const fail = (err) => {
    const w = waiting;
    waiting = undefined;
    w?.reject(err);
  };
  socket.on('data', (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    if (waiting) parse();
  });
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the server closed the connection')));

  function parse() {
    const end = buffer.indexOf(HEAD_END);
    if (end < 0) return;
    const lines = buffer.toString('latin1', 0, end).split('\r\n');
    const status = Number(lines[0].slice(9, 12));
    const headers = {};
    for (let i = 1; i < lines.length; i++) {
      const colon = lines[i].indexOf(':');
      headers[lines[i].slice(0, colon).toLowerCase()] = lines[i].slice(colon + 1).trim();
    }
    let body;
    let used;
    if (headers['transfer-encoding'] === 'chunked') {
      const parts = [];
      let at = end + 4;
      for (;;) {
        const lineEnd = buffer.indexOf('\r\n', at);
        if (lineEnd < 0) return;
        const size = parseInt(buffer.toString('latin1', at, lineEnd), 16);
        if (buffer.length < lineEnd + 2 + size + 2) return;
        if (size === 0) {
          used = lineEnd + 4;
          break;
        }
        parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(parts).toString('utf8');
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (buffer.length < end + 4 + length) return;
      body = buffer.toString('utf8', end + 4, end + 4 + length);
      used = end + 4 + length;
    }
    buffer = buffer.subarray(used);
    const w = waiting;
    waiting = undefined;
    w.resolve({ status, headers, body });
  }

  return {
    request(text) {
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        socket.write(text);
        if (buffer.length) parse();
      });
    },
    close: () => socket.destroy(),
  };
}

const issuer = new URL(process.argv[2]);
const seconds = Number(process.argv[3]);
const prefix = issuer.pathname.replace(/\/$/, '');
const host = issuer.host;
const redirectUri = encodeURIComponent(REDIRECT_URI);
let flows = 0;
let failures = 0;
let firstFailure;
let stopAt = 0;

async function flow(conn) {
  // A fresh PKCE pair (RFC 7636 section 4.1: 32 random octets, base64url) and state per flow.
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(16).toString('base64url');
  const query = `response_type=code&client_id=photo-cli&redirect_uri=${redirectUri}&state=${state}&scope=photo&code_challenge=${challenge}&code_challenge_method=S256`;
  const authorize = await conn.request(`GET ${prefix}/authorize?${query} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  const location = authorize.status === 302 ? new URL(authorize.headers.location) : undefined;
  const code = location?.searchParams.get('code');
  if (!code || location.searchParams.get('state') !== state) return { authorize: authorize.status, location: authorize.headers.location, body: authorize.body };
  const form = `grant_type=authorization_code&code=${encodeURIComponent(code)}&redirect_uri=${redirectUri}&client_id=photo-cli&code_verifier=${verifier}`;
  const token = await conn.request(`POST ${prefix}/token HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n${form}`);
  const body = token.status === 200 ? JSON.parse(token.body) : undefined;
  return typeof body?.access_token === 'string' ? undefined : { token: token.status, body: token.body };
}

async function loop(conn) {
  while (performance.now() < stopAt) {
    const failure = await flow(conn);
    if (failure === undefined) flows++;
    else {
      failures++;
      firstFailure ??= failure;
    }
  }
}

const connections = Array.from({ length: CONCURRENCY }, () => connection(issuer));
try {
  // Warm-up (JIT on both sides, connections), then a fixed duration.
  stopAt = performance.now() + WARMUP_MS;
  await Promise.all(connections.map(loop));
  flows = 0;
  failures = 0;
  process.stdout.write('measuring\n');
  const started = performance.now();
  stopAt = started + seconds * 1000;
  await Promise.all(connections.map(loop));
  const elapsed = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ flows, failures, seconds: elapsed, firstFailure })}\n`);
} finally {
  for (const c of connections) c.close();
}
