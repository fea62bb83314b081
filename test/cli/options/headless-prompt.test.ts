// login --headless without --username / --password: asked only when a login form appears, both in one
// go on a terminal (script(1)); never asked against a server that logs in by itself.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { homeEnv, runCli } from '../../helpers/cli.js';
import { HAS_SCRIPT, runCliOnTerminal } from '../../helpers/terminal.js';

let mock: MockServer | undefined;
let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-headless-prompt-'));
});
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  rmSync(home, { recursive: true, force: true });
});

const login = (m: MockServer, extra: string[] = []) => ['login', '--auth-url', m.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--headless', '--no-cache', '--timeout', '20', ...extra];

describe.skipIf(!HAS_SCRIPT)('on a terminal', () => {
  it('a server that logs in by itself (--auto-login): nothing is asked', async () => {
    mock = await createMockServer(undefined, { autoLogin: 'alice' });
    const r = await runCliOnTerminal(login(mock), { env: homeEnv(home) });
    expect(r.shown).not.toMatch(/Username|Password|asks for a login/);
    expect(r.shown).toContain('token_type=Bearer');
    expect(r.code).toBe(0);
  });

  it('a login form: username and password asked for in one go, then the login completes; the password is in the trace nowhere', async () => {
    mock = await createMockServer();
    const trace = join(home, 'login.har');
    const r = await runCliOnTerminal(login(mock, ['--trace', trace]), {
      env: homeEnv(home),
      typing: [
        { when: /Username/, type: 'alice\r' },
        { when: /Password/, type: 'wonderland\r' },
      ],
    });
    expect(r.shown).toMatch(/The server asks for a login \(http:\/\/127\.0\.0\.1:\d+\/\S+\): username and password/);
    expect(r.shown.match(/asks for a login/g)).toHaveLength(1);
    expect(r.shown).not.toContain('wonderland');
    expect(r.shown).toContain('token_type=Bearer');
    expect(r.code).toBe(0);
    expect(readFileSync(trace, 'utf8')).not.toContain('wonderland');
  });

  it('--username given: only the password is asked', async () => {
    mock = await createMockServer();
    const r = await runCliOnTerminal(login(mock, ['--username', 'alice']), { env: homeEnv(home), typing: [{ when: /Password/, type: 'wonderland\r' }] });
    expect(r.shown).toMatch(/asks for a login \(.*\): password\r?\n/);
    expect(r.shown).not.toMatch(/Username/);
    expect(r.code).toBe(0);
  });
});

describe('not on a terminal', () => {
  it('a login form without the account: one line naming both options, exit 2', async () => {
    mock = await createMockServer();
    const r = await runCli(login(mock), { env: homeEnv(home) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/oauthctl: error: the server at http:\/\/127\.0\.0\.1:\d+\/\S+ asks for a login \(give --username and --password \(or OAUTHCTL_USERNAME and OAUTHCTL_PASSWORD\)\)/);
  });

  it('against --auto-login no account is needed', async () => {
    mock = await createMockServer(undefined, { autoLogin: 'alice' });
    const r = await runCli(login(mock), { env: homeEnv(home) });
    expect(r.code).toBe(0);
  });
});
