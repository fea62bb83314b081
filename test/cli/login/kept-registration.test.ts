// A kept registration the server no longer knows (serve-mock restarted: it forgets dynamic
// registrations) is forgotten and replaced once, narrated, by `mcp`, `login --register` and
// `login --protected-resource`; a second refusal is a clear failure; `register --delete` forgets the
// local copy when the server says the client is gone (RFC 7592 section 2.3).
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { homeEnv, runCli } from '../../helpers/cli.js';

let home: string;
let env: Record<string, string>;
let mock: MockServer | undefined;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-kept-'));
  env = homeEnv(home);
});
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  rmSync(home, { recursive: true, force: true });
});

/** The same server on the same port, with everything it kept forgotten. */
async function restart(): Promise<MockServer> {
  const port = Number(new URL(mock!.issuer).port);
  await mock!.close();
  mock = await createMockServer(undefined, { port, autoLogin: 'alice' });
  return mock;
}

const registrations = () => {
  const dir = join(home, 'state', 'oauthctl', 'registrations');
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe('a kept registration the server no longer knows', () => {
  it('mcp: forgotten and replaced once, narrated', async () => {
    mock = await createMockServer(undefined, { autoLogin: 'alice' });
    const url = `${mock.baseUrl}/mcp`;
    const first = await runCli(['mcp', url, '--headless', '--no-cache'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/registered client/);
    await restart();
    const second = await runCli(['mcp', url, '--headless', '--no-cache'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(
      /warning: http:\/\/127\.0\.0\.1:\d+ no longer knows the client \S+ registered there before \(HTTP 401 at its registration_client_uri, RFC 7592 section 2\.1\): forgot it, registering anew/,
    );
    expect(second.stderr).toMatch(/registered client/);
    expect(registrations()).toHaveLength(1);
  });

  it('mcp: invalid_client at the token endpoint replaces it once; the same refusal of the new client is a clear failure', async () => {
    mock = await createMockServer(undefined, { autoLogin: 'alice' });
    const url = `${mock.baseUrl}/mcp`;
    expect((await runCli(['mcp', url, '--headless', '--no-cache'], { env })).code).toBe(0);
    mock.enqueue({ endpoint: 'token', status: 401, error: 'invalid_client', error_description: 'unknown client', times: 2 });
    const r = await runCli(['mcp', url, '--headless', '--no-cache'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no longer knows the client \S+ registered there before \(.*invalid_client.*\): forgot it, registering anew/);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^oauthctl: error: http:\/\/127\.0\.0\.1:\d+ refused the client \S+ it registered a moment ago \(.*invalid_client.*\) \(the server forgets its registrations at once/,
    );
  });

  it('login --register and login --protected-resource: forgotten and replaced, narrated', async () => {
    mock = await createMockServer(undefined, { autoLogin: 'alice' });
    const login = () => runCli(['login', '--issuer', mock!.issuer, '--register', '--headless', '--username', 'alice', '--password', 'wonderland', '--no-cache', '--json'], { env });
    expect((await login()).code).toBe(0);
    await restart();
    const again = await login();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/no longer knows the client \S+ registered there before .*: forgot it, registering anew/);
    await restart();
    const resource = await runCli(['login', '--protected-resource', `${mock!.baseUrl}/photos`, '--headless', '--username', 'alice', '--password', 'wonderland', '--json'], { env });
    expect(resource.code, resource.stderr).toBe(0);
    expect(resource.stderr).toMatch(/no longer knows the client .*: forgot it, registering anew/);
  });

  it('register --delete after the server forgot: the local copy is forgotten, exit 0', async () => {
    mock = await createMockServer(undefined, { autoLogin: 'alice' });
    const registered = await runCli(['register', '--issuer', mock.issuer, '--redirect-uri', 'http://127.0.0.1/callback'], { env });
    expect(registered.code, registered.stderr).toBe(0);
    expect(registrations()).toHaveLength(1);
    await restart();
    const r = await runCli(['register', '--delete', '--issuer', mock!.issuer, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/no longer knows client \S+ \(RFC 7592 section 2\.3\): forgot the local copy/);
    expect(JSON.parse(r.stdout)).toMatchObject({ deleted: false, forgotten: true });
    expect(registrations()).toHaveLength(0);
  });
});
