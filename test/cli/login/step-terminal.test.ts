import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { BIN, cliEnv } from '../../helpers/cli.js';

const haveTmux = existsSync('/usr/bin/tmux');
if (!haveTmux) console.warn('terminal --step test skipped: tmux is missing');

const PROMPT = 'Enter sends it, e edits a parameter, s skips it, q aborts:';

/** A tmux server of this test's own (its own socket), so no other tmux session is touched. */
class Terminal {
  readonly socket = `oauthctl-step-${process.pid}-${Math.random().toString(36).slice(2)}`;
  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
  start(script: string): void {
    this.tmux('new-session', '-d', '-x', '200', '-y', '50', `sh ${script}`);
  }
  screen(): string {
    try {
      return this.tmux('capture-pane', '-p', '-J', '-S', '-5000');
    } catch {
      return '';
    }
  }
  keys(...keys: string[]): void {
    this.tmux('send-keys', ...keys);
  }
  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone with its last session
    }
  }
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Waits until the condition holds, looking again as soon as the event loop has turned (no fixed sleep). */
async function until<T>(what: string, check: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const count = (text: string, word: string) => text.split(word).length - 1;

describe.skipIf(!haveTmux)('login --step on a terminal (tmux)', () => {
  it('is walked with Enter and one edit: the scope narrowed on the authorization request, and the token has it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauthctl-step-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const mock: MockServer = await createMockServer({});
    cleanups.push(() => mock.close());
    const env = Object.entries(cliEnv())
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(' ');
    const argv = [
      'login',
      '--issuer',
      mock.issuer,
      '--client-id',
      'photo-cli',
      '--scope',
      'openid photo',
      '--headless',
      '--username',
      'alice',
      '--password',
      'wonderland',
      '--step',
      '--json',
      '--trace',
      join(dir, 'flow.har'),
    ];
    const script = join(dir, 'run.sh');
    writeFileSync(
      script,
      `env -i ${env} ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${argv.map((a) => JSON.stringify(a)).join(' ')} > ${join(dir, 'out.json')}\necho $? > ${join(dir, 'code')}\nexec sleep 3600\n`,
    );
    const term = new Terminal();
    cleanups.push(() => term.close());
    term.start(script);

    let answered = 0;
    let edited = false;
    const done = () => existsSync(join(dir, 'code'));
    while (!done()) {
      const screen = await until('the next stop, or the end', () => {
        const s = term.screen();
        return count(s, PROMPT) > answered || done() ? s : undefined;
      });
      if (done()) break;
      const title = [...screen.matchAll(/==> Waiting for you: (.*)/g)].pop()?.[1] ?? '';
      answered = count(screen, PROMPT);
      if (!edited && title.startsWith('authorization request')) {
        edited = true;
        expect(screen).toMatch(/query {2}scope=openid photo/);
        term.keys('e', 'Enter');
        await until('the name question', () => term.screen().includes('parameter name:') || undefined);
        term.keys('scope', 'Enter');
        await until('the value question', () => term.screen().includes('new value of scope (empty removes it):') || undefined);
        term.keys('openid', 'Enter');
        // The request is shown again, edited, and asked about again.
        await until('the edited request', () => count(term.screen(), PROMPT) > answered || undefined);
        answered = count(term.screen(), PROMPT);
        expect(term.screen().split('==> Waiting for you: authorization request').pop()).toMatch(/query {2}scope=openid\n/);
      }
      term.keys('Enter');
    }
    const screen = term.screen();
    const screenNow = term.screen();
    expect(readFileSync(join(dir, 'code'), 'utf8').trim(), screenNow).toBe('0');
    expect(edited).toBe(true);
    // Each stop of the login: discovery, the authorization request, the redirect, the token request (and the key set).
    for (const stop of ['discovery request', 'authorization request', 'redirect back to the client', 'token request']) expect(screen).toContain(`==> Waiting for you: ${stop}`);
    expect(screen).toContain('warning: you changed the authorization request before it was sent: query scope: "openid photo" -> "openid"');
    const tokens = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')) as { scope: string; access_token: string };
    expect(tokens.scope).toBe('openid');
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString('utf8')) as { scope: string };
    expect(claims.scope).toBe('openid');
    // The trace marks it as the person's change.
    const har = JSON.parse(readFileSync(join(dir, 'flow.har'), 'utf8')) as { log: { entries: { comment?: string; _oauthctl: { handoff?: boolean; edited?: string[] } }[] } };
    const handoff = har.log.entries.find((e) => e._oauthctl.handoff)!;
    expect(handoff._oauthctl.edited).toEqual(['query scope: "openid photo" -> "openid"']);
    expect(handoff.comment).toMatch(/^edited by the user before it was sent \(--step\)/);
  }, 120_000);

  it('refuses an edited redirect_uri no listener can receive, in one line, and asks again; Enter then sends it as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauthctl-step-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const mock: MockServer = await createMockServer({});
    cleanups.push(() => mock.close());
    const env = Object.entries(cliEnv())
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(' ');
    const argv = ['login', '--issuer', mock.issuer, '--client-id', 'photo-cli', '--scope', 'openid', '--headless', '--username', 'alice', '--password', 'wonderland', '--step', '--json'];
    const script = join(dir, 'run.sh');
    writeFileSync(
      script,
      `env -i ${env} ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${argv.map((a) => JSON.stringify(a)).join(' ')} > ${join(dir, 'out.json')}\necho $? > ${join(dir, 'code')}\nexec sleep 3600\n`,
    );
    const term = new Terminal();
    cleanups.push(() => term.close());
    term.start(script);

    const refusal =
      'warning: redirect_uri "https://app.example/callback" was not sent: oauthctl can receive a redirect only at a loopback http URI (RFC 8252 section 7.3), such as http://127.0.0.1:PORT/path';
    let answered = 0;
    let edited = false;
    const done = () => existsSync(join(dir, 'code'));
    while (!done()) {
      const screen = await until('the next stop, or the end', () => {
        const s = term.screen();
        return count(s, PROMPT) > answered || done() ? s : undefined;
      });
      if (done()) break;
      const title = [...screen.matchAll(/==> Waiting for you: (.*)/g)].pop()?.[1] ?? '';
      answered = count(screen, PROMPT);
      if (!edited && title.startsWith('authorization request')) {
        edited = true;
        term.keys('e', 'Enter');
        await until('the name question', () => term.screen().includes('parameter name:') || undefined);
        term.keys('redirect_uri', 'Enter');
        await until('the value question', () => term.screen().includes('new value of redirect_uri (empty removes it):') || undefined);
        term.keys('https://app.example/callback', 'Enter');
        await until('the edited request', () => count(term.screen(), PROMPT) > answered || undefined);
        answered = count(term.screen(), PROMPT);
        // Sent as edited: refused, one line, and the request asked about again as it was.
        term.keys('Enter');
        await until('the request asked again', () => count(term.screen(), PROMPT) > answered || undefined);
        const again = term.screen();
        answered = count(again, PROMPT);
        expect(again).toContain(refusal);
        expect(again.split(refusal).pop()).toMatch(/==> Waiting for you: authorization request[\s\S]*query {2}redirect_uri=http:\/\/127\.0\.0\.1:\d+\/callback\n/);
      }
      term.keys('Enter');
    }
    const screen = term.screen();
    expect(readFileSync(join(dir, 'code'), 'utf8').trim(), screen).toBe('0');
    expect(edited).toBe(true);
    expect(count(screen, refusal)).toBe(1);
    expect(screen).not.toContain('you changed the authorization request');
  }, 120_000);
});
