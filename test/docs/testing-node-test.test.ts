// The node:test example of docs/admin-api.md (test/docs/testing-node-test.mjs), run as a user runs it:
// `node --test FILE` (with the TAP reporter, which Node 24 no longer picks by itself off a terminal), importing `oauthctl/mock` by the package's name (the built dist/).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

it('node --test test/docs/testing-node-test.mjs passes', async () => {
  const child = spawn(process.execPath, ['--test', '--test-reporter=tap', join('test', 'docs', 'testing-node-test.mjs')], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect(out).toMatch(/^# pass 2$/m);
  expect(out).toMatch(/^# fail 0$/m);
  expect(code).toBe(0);
}, 60_000);
