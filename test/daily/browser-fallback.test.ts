// B1: when no browser can be started, login prints the URL and keeps waiting; the user (here the
// test) opens it, and the flow completes.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { BIN, cliEnv, ROOT } from '../helpers/cli.js';

let mock: MockServer;
beforeAll(async () => {
  mock = await createMockServer(undefined, { autoLogin: 'alice' });
});
afterAll(async () => {
  await mock.close();
});

/** Runs login; as soon as stderr shows the authorization URL, opens it as a browser would (the user's part). */
function loginOpeningThePrintedUrl(env: Record<string, string>): Promise<{ code: number | null; stderr: string; opened: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--timeout', '30'], {
      cwd: ROOT,
      env: cliEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let opened = false;
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const url = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr)?.[1];
      if (url && !opened) {
        opened = true;
        void (async () => {
          const res = await fetch(url, { redirect: 'manual' });
          await fetch(res.headers.get('location') ?? '');
        })().catch(reject);
      }
    });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, opened }));
  });
}

describe('login when no browser can be started', () => {
  it('a BROWSER command that exits non-zero: the URL is printed and the login still completes', async () => {
    const r = await loginOpeningThePrintedUrl({ BROWSER: 'false' });
    expect(r.stderr).toMatch(/warning: BROWSER "false" exited with status 1; open the URL yourself/);
    expect(r.opened).toBe(true);
    expect(r.code).toBe(0);
  });

  it('no BROWSER and the system opener fails (no display): the URL is printed and the login still completes', async () => {
    const r = await loginOpeningThePrintedUrl({});
    expect(r.stderr).toMatch(/warning: the system browser could not be started \(.*exited with status \d+\); open the URL yourself/);
    expect(r.opened).toBe(true);
    expect(r.code).toBe(0);
  });
});
