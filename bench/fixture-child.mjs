#!/usr/bin/env node
// The fixture cost of bench/mock.bench.mjs, in a process of its own: what a test pays per mock server
// in library mode: create -> GET /jwks -> one code + PKCE flow with openid (the ID token signed) ->
// close. oauthctl's createMockServer with its defaults and with an RS256 key, against
// oauth2-mock-server 8's in-process server with an RS256 key (its authorize redirects at once, as
// --auto-login does). A warm-up of each first, then interleaved rounds in rotating order; prints one
// JSON line of medians in milliseconds (wall time, and CPU time of the process).
// Run: npm run build && node bench/fixture-child.mjs   (env BENCH_FIXTURE_ROUNDS, default 21)
import { createHash, randomBytes } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';
import { createMockServer } from '../dist/mock/index.js';

const ROUNDS = Number(process.env.BENCH_FIXTURE_ROUNDS ?? 21);
const REDIRECT_URI = 'http://127.0.0.1:8080/callback';

async function flow(issuer, clientId) {
  const jwks = await (await fetch(`${issuer}/jwks`)).json();
  if (!jwks.keys?.length) throw new Error(`${issuer}/jwks: no keys`);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    state: 'fixture',
    scope: 'openid photo',
    nonce: 'n',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const authorize = await fetch(`${issuer}/authorize?${query}`, { redirect: 'manual' });
  await authorize.arrayBuffer();
  const code = new URL(authorize.headers.get('location')).searchParams.get('code');
  const token = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier }),
  });
  const body = await token.json();
  if (!body.id_token) throw new Error(`${issuer}: no ID token: ${JSON.stringify(body)}`);
}

const contenders = {
  ours: async () => {
    const server = await createMockServer(undefined, { autoLogin: 'alice' });
    await flow(server.issuer, 'photo-cli');
    await server.close();
  },
  oursRS256: async () => {
    const server = await createMockServer({ signing_alg: 'RS256' }, { autoLogin: 'alice' });
    await flow(server.issuer, 'photo-cli');
    await server.close();
  },
  theirs: async () => {
    const server = new OAuth2Server();
    await server.issuer.keys.generate('RS256');
    await server.start(0, '127.0.0.1');
    await flow(server.issuer.url, 'photo-cli');
    await server.stop();
  },
};

// BENCH_FIXTURE_ONLY=ours,theirs: some of the contenders (to see how one affects another's figures).
const names = process.env.BENCH_FIXTURE_ONLY ? process.env.BENCH_FIXTURE_ONLY.split(',') : Object.keys(contenders);
const times = Object.fromEntries(names.map((n) => [n, []]));
const cpu = Object.fromEntries(names.map((n) => [n, []]));
for (const n of names) await contenders[n]();
for (let r = 0; r < ROUNDS; r++) {
  for (let i = 0; i < names.length; i++) {
    const n = names[(i + r) % names.length];
    const started = performance.now();
    const usage = process.cpuUsage();
    await contenders[n]();
    times[n].push(performance.now() - started);
    const used = process.cpuUsage(usage);
    cpu[n].push((used.user + used.system) / 1000);
  }
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// CPU milliseconds of this process (all its threads, libuv's pool included) beside the wall time:
// on a busy machine the wall time also holds the waits for a core.
console.log(JSON.stringify({ rounds: ROUNDS, ...Object.fromEntries(names.map((n) => [n, median(times[n])])), cpu: Object.fromEntries(names.map((n) => [n, median(cpu[n])])) }));
