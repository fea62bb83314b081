#!/usr/bin/env node
// The MCP conformance suite's `authorization` command (@modelcontextprotocol/conformance; Node 22 or
// later) against serve-mock out of the box: the built CLI starts the mock on a free port with
// --auto-login, the suite tests it as the authorization server of an MCP server (its metadata, the
// authorization code grant with PKCE and no scope, RFC 8707's resource), and this script plays the
// browser: it follows the authorization URL the suite prints, which redirects to the suite's callback.
// Run from a temporary directory (the suite writes results/ there). Exit 0 only when every check passed.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const suite = join(here, '..', '..', 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const cli = join(here, '..', '..', 'bin', 'oauthctl.js');

/** A free loopback port for the suite's callback listener. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

/** The suite starts its callback listener just after printing the URL: a refused connection is tried again, a bounded number of times. */
async function deliver(location, tries = 50) {
  for (let i = 1; ; i++) {
    try {
      return await fetch(location);
    } catch (err) {
      if (i >= tries) throw err;
      await new Promise((r) => setTimeout(r, 100 * Math.min(i, 10)));
    }
  }
}

const mock = spawn(process.execPath, [cli, 'serve-mock', '--port', '0', '--auto-login', 'alice', '--json', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
const started = await new Promise((resolve, reject) => {
  let out = '';
  mock.stdout.setEncoding('utf8').on('data', (d) => {
    out += d;
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line) resolve(JSON.parse(line));
  });
  mock.on('exit', (code) => reject(new Error(`serve-mock exited (${code}) before it listened`)));
});

let code;
try {
  const port = await freePort();
  const args = [suite, 'authorization', '--url', started.issuer, '--client-id', 'photo-cli', '--resource', `${started.base_url}/mcp`, '--port', String(port), '-o', 'results'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d) => {
    output += d;
    process.stdout.write(d);
    // The authorization URL the suite asks a person to open: the mock logs alice in and redirects.
    for (const m of d.matchAll(/^(https?:\/\/\S+\/authorize\?\S+)$/gm)) {
      fetch(m[1], { redirect: 'manual' })
        .then((r) => r.headers.get('location'))
        .then((location) => location && deliver(location))
        .catch((err) => console.error(`could not follow the authorization URL: ${err.message}`));
    }
  });
  code = await new Promise((resolve) => child.on('close', resolve));
  if (code === 0 && /FAIL/.test(output)) code = 1;
} finally {
  mock.kill('SIGTERM');
}
process.exit(code ?? 1);
