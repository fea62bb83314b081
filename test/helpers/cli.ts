import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(ROOT, 'bin', 'oauthctl.js');
/** BROWSER value that plays the browser (see fake-browser.mjs). */
export const FAKE_BROWSER = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'test', 'helpers', 'fake-browser.mjs'))}`;

/** A throw-away home for the spawned CLI, so profiles and token caches never touch the real one. */
const HOME = mkdtempSync(join(tmpdir(), 'oauthctl-home-'));
process.on('exit', () => rmSync(HOME, { recursive: true, force: true }));

/** HOME and the XDG config and state folders under it: where a command keeps profiles, tokens and registrations. */
export function homeEnv(home: string): { HOME: string; XDG_CONFIG_HOME: string; XDG_STATE_HOME: string } {
  return { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state') };
}

/** The spawned CLI's whole environment: PATH, the temporary HOME and XDG dirs, NO_COLOR, plus `extra`. */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...homeEnv(HOME), NO_COLOR: '1', ...extra };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the BUILT CLI (`node bin/oauthctl.js ...`) asynchronously, so that servers in the test process
 * keep answering. The environment is minimal and explicit: no proxies or secrets leak in from outside,
 * and HOME is a temporary directory. `bin` runs another copy of the program (an install made by a test).
 */
export function runCli(args: readonly string[], options: { env?: Record<string, string>; input?: string; bin?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
      cwd: ROOT,
      env: cliEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
