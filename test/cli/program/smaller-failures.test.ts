import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/program/main.js';
import { suggestSimilar } from '../../../src/cli/program/command.js';
import { runStatus } from '../../../src/cli/token/status.js';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { memoryIO } from '../../helpers/io.js';

let mock: MockServer;
const home = mkdtempSync(join(tmpdir(), 'oauthctl-smaller-'));
const env = () => ({ NO_COLOR: '1', HOME: home, PATH: process.env.PATH ?? '' });
const cli = async (...args: string[]) => {
  const io = memoryIO(env());
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
};
const failure = (err: string) => err.split('\n').find((l) => l.startsWith('oauthctl: error:'));
const login = (...args: string[]) => cli('login', '--auth-url', mock.authUrl, '--headless', '--username', 'alice', '--password', 'wonderland', '--json', '-q', ...args);

beforeAll(async () => {
  mock = await createMockServer();
});
afterAll(async () => {
  await mock.close();
  rmSync(home, { recursive: true, force: true });
});

describe('the smaller failures, explained', () => {
  it('introspect of a cached confidential client says it needs the secret, as refresh does', async () => {
    expect((await login('--client-id', 'photo-web', '--client-secret', 'photo-web-secret', '--scope', 'photo offline_access')).code).toBe(0);
    const refresh = await cli('refresh');
    const introspect = await cli('introspect');
    expect(introspect.code).toBe(2);
    expect(failure(refresh.err)).toBe('oauthctl: error: refreshing needs the client secret of photo-web (client_secret_basic) (give --client-secret or set OAUTHCTL_CLIENT_SECRET)');
    expect(failure(introspect.err)).toBe('oauthctl: error: introspection needs the client secret of photo-web (client_secret_basic) (give --client-secret or set OAUTHCTL_CLIENT_SECRET)');
    const given = await cli('introspect', '--client-secret', 'photo-web-secret');
    expect(given.code).toBe(0);
    expect(given.out).toMatch(/^active\n/);
  });

  it('status suggests the login line the cached login used', async () => {
    const absent = memoryIO(env());
    expect(await runStatus({ clientId: 'photo-cli', authUrl: mock.authUrl }, absent)).toBe(1);
    expect(absent.err()).toContain(`Log in with: oauthctl login --auth-url ${mock.authUrl} --client-id photo-cli`);
  });

  it('an expired login without a refresh token: the login line has the server, client and scope', async () => {
    expect((await login('--client-id', 'photo-cli', '--scope', 'photo')).code).toBe(0);
    const io = memoryIO(env());
    expect(await runStatus({ clientId: 'photo-cli', authUrl: mock.authUrl }, io, () => Date.now() + 86_400_000)).toBe(1);
    expect(io.err() + io.out()).toContain(`log in again: oauthctl login --auth-url ${mock.authUrl} --client-id photo-cli --scope photo`);
  });

  it('the --insecure warning once per command, however many logins logout --all revokes', async () => {
    const r = await cli('logout', '--all', '--insecure', '--client-secret', 'photo-web-secret');
    expect(r.code).toBe(0);
    expect(r.err.match(/--insecure: TLS certificates are NOT verified/g)).toHaveLength(1);
    expect(r.err.match(/Forgot the cached tokens/g)).toHaveLength(2);
  });

  it('audit --only with a mistyped probe name suggests the nearest one', async () => {
    const r = await cli('audit', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--username', 'alice', '--password', 'wonderland', '--only', 'pkce-requird');
    expect(r.code).toBe(2);
    expect(failure(r.err)).toMatch(/^oauthctl: error: unknown probe or category "pkce-requird" \(did you mean "pkce-required"\? categories: authorization-endpoint, /);
    const far = await cli('audit', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--username', 'alice', '--password', 'wonderland', '--only', 'zzzzzz');
    expect(failure(far.err)).not.toContain('did you mean');
  });

  it('the nearest name is the one the unknown commands use', () => {
    expect(suggestSimilar('refresh-rotaton', ['refresh-rotation', 'flow'])).toBe('refresh-rotation');
    expect(suggestSimilar('xyz', ['state', 'iss'])).toBeUndefined();
  });
});
