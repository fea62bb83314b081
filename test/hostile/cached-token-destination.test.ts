// Where a cached login's token goes: `call URL` on a hostile origin with one login cached, and what
// `token` says when it cannot tell which login (or any) is meant.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { runCli } from '../helpers/cli.js';

let api: RecordingServer;
let evil: RecordingServer;
beforeAll(async () => {
  [api, evil] = await Promise.all([startRecordingServer(), startRecordingServer()]);
});
afterAll(async () => {
  await Promise.all([api.close(), evil.close()]);
});

let home: string;
let env: Record<string, string>;
const tokens = () => join(home, 'state', 'oauthctl', 'tokens');
beforeEach(() => {
  api.reset();
  evil.reset();
  home = mkdtempSync(join(tmpdir(), 'oauthctl-destination-'));
  env = { XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state') };
  mkdirSync(tokens(), { recursive: true, mode: 0o700 });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 24);

/** A valid cached login (no refresh needed) under the file name its key gives. */
function cache(name: string, fields: Record<string, unknown>): void {
  const entry = { version: 1, client_id: 'photo-cli', auth_method: 'none', access_token: 'at-cached', obtained_at: 1, expires_at: Math.floor(Date.now() / 1000) + 3600, ...fields };
  writeFileSync(join(tokens(), name), JSON.stringify(entry), { mode: 0o600 });
}
const bearers = (server: RecordingServer) => server.requests.filter((r) => r.headers.authorization !== undefined).map((r) => r.headers.authorization);

describe('call URL with one cached login (RFC 6750 section 5.2: a token only where it was obtained for)', () => {
  beforeEach(() => cache(`client-${digest(`${api.url}\nphoto-cli`)}.json`, { token_endpoint: `${api.url}/token` }));

  it("goes to its server's origin", async () => {
    const r = await runCli(['call', `${api.url}/api`], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(bearers(api)).toEqual(['Bearer at-cached']);
  });

  it('is refused for another origin, in one line, and that origin gets no request', async () => {
    const r = await runCli(['call', `${evil.url}/api`], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `oauthctl: error: the cached login's token was obtained for ${api.url}, not ${evil.url}: it is not sent there (name the login with --profile NAME to send its token anyway, or give the token with --token)`,
    );
    expect(evil.requests).toHaveLength(0);
  });

  it('--token is the user saying where a token goes', async () => {
    const r = await runCli(['call', `${evil.url}/api`, '--token', 'at-given'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(bearers(evil)).toEqual(['Bearer at-given']);
  });
});

describe('call URL with a login made for a protected resource', () => {
  it("goes to the resource's origin only", async () => {
    const resource = `${api.url}/mcp`;
    cache(`resource-${digest(resource)}.json`, { token_endpoint: `${evil.url}/token`, resource, client_id: 'dyn-generated' });
    const refused = await runCli(['call', `${evil.url}/api`], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`obtained for the protected resource ${resource}, not ${evil.url}`);
    expect(evil.requests).toHaveLength(0);
    const sent = await runCli(['call', `${api.url}/api`], { env });
    expect(sent.code, sent.stderr).toBe(0);
    expect(bearers(api)).toEqual(['Bearer at-cached']);
  });
});

describe('call URL with --profile: the profile says where', () => {
  it('a profile named explicitly sends its token to an API on another origin than its server', async () => {
    const add = await runCli(['profile', 'add', 'work', '--auth-url', api.url, '--client-id', 'photo-cli'], { env });
    expect(add.code, add.stderr).toBe(0);
    cache('profile-work.json', { profile: 'work', token_endpoint: `${api.url}/token` });
    const implicit = await runCli(['call', `${evil.url}/api`], { env });
    expect(implicit.code).toBe(2);
    expect(evil.requests).toHaveLength(0);
    const named = await runCli(['call', `${evil.url}/api`, '--profile', 'work'], { env });
    expect(named.code, named.stderr).toBe(0);
    expect(bearers(evil)).toEqual(['Bearer at-cached']);
  });
});

describe('token without a profile', () => {
  it('with no login cached: says what to do, exit 1, one line', async () => {
    const r = await runCli(['token', '--no-login'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/no login is cached, and nothing says where to log in \(give --profile NAME, or --issuer URL \(or --auth-url URL\) and --client-id ID/);
  });

  it('with several logins: suggests the flags each was made with, never a generated client id, and each works when copied', async () => {
    const issuer = `${api.url}/issuer`;
    const resource = `${api.url}/mcp`;
    cache(`client-${digest(`${evil.url}\nphoto-cli`)}.json`, { token_endpoint: `${evil.url}/token`, access_token: 'at-auth-url' });
    cache(`client-${digest(`${issuer}\nphoto-web`)}.json`, { issuer, token_endpoint: `${api.url}/token`, client_id: 'photo-web', access_token: 'at-issuer' });
    cache(`resource-${digest(resource)}.json`, { resource, token_endpoint: `${api.url}/token`, client_id: 'dyn-Zk3vQ9fGeneratedId', access_token: 'at-resource' });
    const r = await runCli(['token', '--no-login'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('3 logins are cached; say which one');
    expect(r.stderr).not.toContain('dyn-');
    const hint = /\((.*)\)$/.exec(r.stderr.trim())?.[1] ?? '';
    const options = hint.split(' | ');
    expect(options.sort()).toEqual([`--auth-url ${evil.url}`, `--issuer ${issuer}`, `--protected-resource ${resource}`].sort());
    const expected: Record<string, string> = { '--auth-url': 'at-auth-url', '--issuer': 'at-issuer', '--protected-resource': 'at-resource' };
    for (const option of options) {
      const copied = await runCli(['token', '--no-login', ...option.split(' ')], { env });
      expect(copied.stderr).toBe('');
      expect(copied.stdout).toBe(`${expected[option.split(' ')[0]!]}\n`);
    }
  });
});
