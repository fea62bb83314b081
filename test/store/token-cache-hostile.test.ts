import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/** Cache entries that are not what a cache entry is, and a tokens directory others can write to. */
let state: string;
let tokens: string;
const entry = () => join(tokens, 'profile-work.json');
const token = () => runCli(['token', '--profile', 'work'], { env: { XDG_STATE_HOME: state } });

beforeEach(() => {
  state = mkdtempSync(join(tmpdir(), 'oauthctl-state-'));
  tokens = join(state, 'oauthctl', 'tokens');
  mkdirSync(tokens, { recursive: true, mode: 0o700 });
  chmodSync(tokens, 0o700);
});
afterEach(() => {
  rmSync(state, { recursive: true, force: true });
});

function expectOneLineNaming(stderr: string, what: RegExp): void {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(entry());
  expect(lines[0]).toMatch(what);
}

describe.skipIf(process.platform === 'win32')('token cache entries that are not files', () => {
  it('a directory in place of an entry gets one line naming it', async () => {
    mkdirSync(entry());
    const res = await token();
    expect(res.code).toBe(2);
    expectOneLineNaming(res.stderr, /is a directory, not a file.*remove it/);
  });

  it('a FIFO in place of an entry gets one line and never hangs the run', async () => {
    execFileSync('mkfifo', [entry()]);
    const res = await token();
    expect(res.code).toBe(2);
    expectOneLineNaming(res.stderr, /is a FIFO/);
  });

  it('a huge file in place of an entry is not read', async () => {
    writeFileSync(entry(), `{"version":1,"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`, { mode: 0o600 });
    const res = await token();
    expect(res.code).toBe(2);
    expectOneLineNaming(res.stderr, /\d+ bytes, more than/);
  });

  it('a tokens directory writable by others is refused with the chmod that fixes it, and nothing is written there', async () => {
    chmodSync(tokens, 0o777);
    const res = await token();
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`the tokens directory ${tokens} is writable by others (mode 777)`);
    expect(res.stderr).toContain(`chmod 700 "${tokens}"`);
    expect(statSync(tokens).mode & 0o777).toBe(0o777);
  });
});
