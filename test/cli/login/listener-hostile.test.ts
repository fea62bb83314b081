import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { FAKE_BROWSER, ROOT, runCli } from '../../helpers/cli.js';
import { startRedirectListener } from '../../../src/client/listeners/listener.js';

/** A local process that can reach the loopback listener, and what it must not achieve. */
const FORGING_BROWSER = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'test', 'helpers', 'forging-browser.mjs'))}`;

let as: RecordingServer;
let dir: string;
let n = 0;
beforeAll(async () => {
  as = await startRecordingServer();
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-forge-'));
});
afterAll(async () => {
  await as.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => as.reset());

/** Runs login with the forging "browser" sending these queries in order; returns the result and what each got. */
async function forge(queries: string[]) {
  const log = join(dir, `forge-${n++}.log`);
  const r = await runCli(['login', '--auth-url', as.url, '--client-id', 'photo-cli', '--timeout', '20', '--no-cache'], {
    env: { BROWSER: FORGING_BROWSER, FORGE_QUERIES: JSON.stringify(queries), FORGE_LOG: log },
  });
  return { ...r, answers: await answersIn(log, queries.length) };
}

/** The forging browser may still be writing when login has exited: wait for its log to hold every answer. */
async function answersIn(log: string, count: number): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
    if (lines.length >= count) return lines;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the forging browser did not log ${count} answers in ${log}`);
}

describe('the loopback listener against a local process', () => {
  it('a probe without code, error or state is answered 400 and the login keeps waiting', async () => {
    const r = await forge(['a=b', 'error=access_denied&state={state}']);
    expect(r.answers[0]).toMatch(/^400 a=b /);
    expect(r.answers[1]).toMatch(/^200 error=access_denied/);
    // The flow ended on the real answer, not on the probe.
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/oauthctl: error: the authorization server answered access_denied/);
  });

  it('repeated parameters refuse the redirect without a token request, and the page says it failed', async () => {
    const r = await forge(['code=abc&code=def&state={state}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/oauthctl: error: the redirect repeats code .*RFC 6749 section 3\.1/);
    expect(as.to('/token')).toEqual([]);
    expect(r.answers[0]).toContain('Authorization failed');
    expect(r.answers[0]).not.toContain('Authorization received');
  });

  it('after a state mismatch the browser page says it failed, and no token request is sent', async () => {
    const r = await forge(['code=abc&state=forged']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/state mismatch/);
    expect(as.to('/token')).toEqual([]);
    expect(r.answers[0]).toContain('Authorization failed');
    expect(r.answers[0]).toContain('state mismatch');
  });

  it('"iss matches" only when something was compared', async () => {
    as.authorize = { iss: 'https://somebody.example' };
    const r = await runCli(['login', '--auth-url', as.url, '--client-id', 'photo-cli', '--timeout', '20', '--no-cache'], { env: { BROWSER: FAKE_BROWSER } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('✓ state matches');
    expect(r.stderr).not.toContain('iss matches');
  });

  it('in-process: probes never end the wait; listen-style capture takes anything', async () => {
    const listener = await startRedirectListener({ redirectUri: 'http://127.0.0.1/callback', expectedState: 's1' });
    try {
      const probe = await fetch(`${listener.redirectUri}?foo=bar`);
      expect(probe.status).toBe(400);
      const post = await fetch(listener.redirectUri, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'x=1' });
      expect(post.status).toBe(400);
      const real = await fetch(`${listener.redirectUri}?code=c1&state=s1`);
      expect(await real.text()).toContain('Authorization received');
      expect((await listener.waitForRedirect()).params).toEqual({ code: 'c1', state: 's1' });
    } finally {
      await listener.close();
    }
    const any = await startRedirectListener({ redirectUri: 'http://127.0.0.1/callback', acceptAnyParameters: true });
    try {
      await fetch(`${any.redirectUri}?foo=bar`);
      expect((await any.waitForRedirect()).params).toEqual({ foo: 'bar' });
    } finally {
      await any.close();
    }
  });
});
