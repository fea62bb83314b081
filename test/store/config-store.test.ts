import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configProblem, loadConfig, loadSelectedProfile, mergeUnderFlags, profileToFlowOptions, updateConfig } from '../../src/store/config-store.js';
import { configDir, configFilePath, tokenCacheDir } from '../../src/store/paths.js';
import { UsageError } from '../../src/errors.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-config-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('paths', () => {
  it('follow XDG_CONFIG_HOME and XDG_STATE_HOME from the given environment', () => {
    const env = { HOME: '/home/u', XDG_CONFIG_HOME: '/cfg', XDG_STATE_HOME: '/state' };
    expect(configFilePath(env)).toBe('/cfg/oauthctl/config.json');
    expect(tokenCacheDir(env)).toBe('/state/oauthctl/tokens');
  });

  it('fall back to ~/.config/oauthctl, ignore relative XDG paths, and prefer --config', () => {
    const env = { HOME: '/home/u', XDG_CONFIG_HOME: 'relative/cfg' };
    expect(configDir(env)).toBe('/home/u/.config/oauthctl');
    expect(tokenCacheDir(env)).toBe('/home/u/.config/oauthctl/tokens');
    expect(configFilePath(env, '/elsewhere/p.json')).toBe('/elsewhere/p.json');
  });

  it('need HOME or the XDG variables in the given environment, and never guess', () => {
    expect(() => configFilePath({})).toThrow(/no home directory in the environment/);
    expect(() => tokenCacheDir({ XDG_CONFIG_HOME: '/cfg' })).not.toThrow();
    expect(configFilePath({}, '/explicit.json')).toBe('/explicit.json');
  });
});

describe('loadConfig', () => {
  it('treats a missing file as empty', async () => {
    const loaded = await loadConfig(join(dir, 'none.json'));
    expect(loaded).toMatchObject({ exists: false, config: { profiles: {} } });
  });

  it('reports a corrupt file as one UsageError naming the file, and never overwrites it', async () => {
    const path = join(dir, 'config.json');
    writeFileSync(path, '{"profiles": {"a": {"client_id": "x"},}');
    await expect(loadConfig(path)).rejects.toSatisfy((e: unknown) => e instanceof UsageError && e.exitCode === 2 && e.message.includes(path) && e.message.includes('not valid JSON'));
    await expect(updateConfig(path, (c) => void (c.profiles.b = { client_id: 'y' }))).rejects.toBeInstanceOf(UsageError);
    expect(readFileSync(path, 'utf8')).toBe('{"profiles": {"a": {"client_id": "x"},}');
  });

  // root reads every file whatever its mode, so this one needs an ordinary user.
  it.skipIf(process.getuid?.() === 0)('reports an unreadable file and leaves it alone', async () => {
    const path = join(dir, 'config.json');
    writeFileSync(path, '{"profiles":{}}');
    chmodSync(path, 0o000);
    await expect(loadConfig(path)).rejects.toThrow(/cannot read config file .*permission denied/);
    await expect(updateConfig(path, () => undefined)).rejects.toBeInstanceOf(UsageError);
    chmodSync(path, 0o600);
    expect(readFileSync(path, 'utf8')).toBe('{"profiles":{}}');
  });

  it('reports a path it cannot read as a file (a directory), whoever runs it', async () => {
    await expect(loadConfig(dir)).rejects.toThrow(/cannot read config file .*it is a directory/);
    await expect(updateConfig(dir, () => undefined)).rejects.toBeInstanceOf(UsageError);
    expect(statSync(dir).isDirectory()).toBe(true);
  });

  it('names the field that is wrong', () => {
    expect(configProblem([])).toMatch(/top level/);
    expect(configProblem({ profiles: { dev: { pkce: 'yes' } } })).toBe('profiles.dev.pkce: must be true or false');
    expect(configProblem({ profiles: { dev: { issuer: 'ftp://x' } } })).toMatch(/^profiles\.dev\.issuer: must be an http or https URL/);
    expect(configProblem({ profiles: { dev: { clientid: 'x' } } })).toMatch(/^profiles\.dev\.clientid: unknown field/);
    expect(configProblem({ profiles: { '../x': {} } })).toMatch(/profile name/);
    expect(configProblem({ profiles: { dev: { params: { prompt: 1 } } } })).toBe('profiles.dev.params: .prompt must be a string');
    expect(configProblem({ profiles: { dev: { issuer: 'https://id.example.com', client_id: 'cli', pkce: true } } })).toBeUndefined();
  });
});

describe('updateConfig', () => {
  it('creates the file 0600 and keeps other keys', async () => {
    const path = join(dir, 'sub', 'config.json');
    await updateConfig(path, (c) => {
      c.profiles.dev = { issuer: 'https://id.example.com', client_id: 'cli' };
    });
    await updateConfig(path, (c) => {
      c['//'] = 'a comment';
      c.profiles.prod = { auth_url: 'https://auth.example.com', client_id: 'web' };
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    expect(Object.keys(saved.profiles)).toEqual(['dev', 'prod']);
    expect(saved['//']).toBe('a comment');
  });
});

describe('profiles', () => {
  const write = (config: unknown) => {
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
    return path;
  };

  it('is chosen by --profile, else OAUTHCTL_PROFILE, and read only when asked for', async () => {
    const path = write({ profiles: { a: { client_id: 'from-a' }, b: { client_id: 'from-b' } } });
    expect(await loadSelectedProfile({ config: path }, {})).toBeUndefined();
    expect((await loadSelectedProfile({ config: path }, { OAUTHCTL_PROFILE: 'b' }))?.profile.client_id).toBe('from-b');
    expect((await loadSelectedProfile({ config: path, profile: 'a' }, { OAUTHCTL_PROFILE: 'b' }))?.profile.client_id).toBe('from-a');
    // No profile asked for: a corrupt file does not matter.
    writeFileSync(path, 'not json');
    expect(await loadSelectedProfile({ config: path }, {})).toBeUndefined();
  });

  it('is looked up in $XDG_CONFIG_HOME/oauthctl/config.json by default', async () => {
    const env = { XDG_CONFIG_HOME: dir, OAUTHCTL_PROFILE: 'x' };
    await updateConfig(configFilePath(env), (c) => void (c.profiles.x = { client_id: 'xdg' }));
    expect((await loadSelectedProfile({}, env))?.profile.client_id).toBe('xdg');
  });

  it('names the known profiles when the one asked for is missing', async () => {
    const path = write({ profiles: { a: { client_id: 'x' } } });
    await expect(loadSelectedProfile({ config: path, profile: 'nope' }, {})).rejects.toSatisfy(
      (e: unknown) => e instanceof UsageError && /no profile named "nope"/.test(e.message) && /known profiles: a/.test(e.hint ?? ''),
    );
  });

  it('warns when a file holding a client secret is readable by others', async () => {
    const path = write({ profiles: { a: { client_id: 'x', client_secret: 's' } } });
    chmodSync(path, 0o644);
    const selected = await loadSelectedProfile({ config: path, profile: 'a' }, {});
    expect(selected?.warnings.join()).toMatch(/chmod 600/);
  });

  it('takes the client secret from the variable client_secret_env names', () => {
    const profile = { client_id: 'web', client_secret_env: 'MY_SECRET' };
    expect(profileToFlowOptions('p', profile, { MY_SECRET: 's3cret' }).clientSecret).toBe('s3cret');
    expect(() => profileToFlowOptions('p', profile, {})).toThrow(/\$MY_SECRET, which is not set/);
    // A secret given on the command line makes the variable unnecessary.
    expect(profileToFlowOptions('p', profile, {}, true).clientSecret).toBeUndefined();
  });

  it('turns a profile into flow option values that flags override', () => {
    const fromProfile = profileToFlowOptions(
      'p',
      {
        issuer: 'https://id.example.com',
        client_id: 'cli',
        scope: 'openid photo',
        pkce: true,
        params: { prompt: 'consent' },
      },
      {},
    );
    expect(fromProfile).toEqual({
      issuer: 'https://id.example.com',
      clientId: 'cli',
      scope: ['openid photo'],
      pkce: true,
      param: ['prompt=consent'],
    });
    const flags = { scope: ['email'], pkce: undefined as boolean | undefined };
    const merged = mergeUnderFlags(flags, fromProfile);
    expect(merged).toEqual({ clientId: 'cli', scope: ['email'], pkce: true, issuer: 'https://id.example.com', param: ['prompt=consent'] });
  });

  it("drops the profile's server when a flag names another, and its secret when a flag names another client", () => {
    const fromProfile = profileToFlowOptions(
      'p',
      { issuer: 'https://id.example.com', token_endpoint: 'https://id.example.com/t', client_id: 'web', client_secret: 's', auth_method: 'client_secret_post' },
      {},
    );
    expect(mergeUnderFlags({ authUrl: 'http://127.0.0.1:9000' }, fromProfile)).toEqual({
      authUrl: 'http://127.0.0.1:9000',
      clientId: 'web',
      clientSecret: 's',
      authMethod: 'client_secret_post',
    });
    expect(mergeUnderFlags({ clientId: 'cli' }, fromProfile)).toEqual({ clientId: 'cli', issuer: 'https://id.example.com', tokenEndpoint: 'https://id.example.com/t' });
    // A secret flag for the profile's own client keeps the profile's client id.
    expect(mergeUnderFlags({ clientSecret: 'flag' }, fromProfile)).toMatchObject({ clientId: 'web', clientSecret: 'flag' });
  });
});
