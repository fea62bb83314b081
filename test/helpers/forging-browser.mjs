#!/usr/bin/env node
// Plays a hostile local process in tests: BROWSER="node test/helpers/forging-browser.mjs" gets the
// authorization URL, never visits the server, and sends the loopback listener the requests named in
// FORGE_QUERIES (JSON array of query strings, sent in order; "{state}" becomes the real state).
// FORGE_LOG=file appends "<status> <query>" for each.
import { appendFileSync } from 'node:fs';

const authorization = new URL(process.argv[process.argv.length - 1]);
const redirectUri = authorization.searchParams.get('redirect_uri');
const state = authorization.searchParams.get('state') ?? '';
for (const query of JSON.parse(process.env.FORGE_QUERIES ?? '[]')) {
  const url = `${redirectUri}?${query.replaceAll('{state}', encodeURIComponent(state))}`;
  const res = await fetch(url, { redirect: 'manual' });
  const body = await res.text();
  if (process.env.FORGE_LOG) appendFileSync(process.env.FORGE_LOG, `${res.status} ${query} ${JSON.stringify(body.slice(0, 4000))}\n`);
}
