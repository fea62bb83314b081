import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheFileName, forgetTokens, listCachedTokens, openTokenCache, readCachedTokens, saveTokens, tokenState, type CachedTokens, type TokenCache } from '../../src/store/token-cache.js';
import { getValidAccessToken, refreshCached } from '../../src/store/token-refresh.js';
import { FlowError } from '../../src/errors.js';

const run = promisify(execFile);
const WRITER = join(import.meta.dirname, 'helpers', 'cache-writer.ts');
const SOURCE = { issuer: 'https://id.example.com', tokenEndpoint: 'https://id.example.com/token', clientId: 'photo-cli', authMethod: 'none' };

let dir: string;
let clock: number;
let cache: TokenCache;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-cache-'));
  clock = Date.UTC(2026, 0, 1, 12, 0, 0);
  cache = openTokenCache({}, { dir: join(dir, 'tokens'), now: () => clock });
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('token cache files', () => {
  it('keeps an entry per profile in a 0600 file inside a 0700 directory, without the client secret', async () => {
    const entry = await saveTokens(
      cache,
      { profile: 'work' },
      {
        access_token: 'at-1',
        refresh_token: 'rt-1',
        id_token: 'id-1',
        expires_in: 300,
        scope: 'openid photo',
        token_type: 'Bearer',
      },
      SOURCE,
    );
    const path = join(dir, 'tokens', 'profile-work.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'tokens')).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(readFileSync(path, 'utf8')) as CachedTokens;
    expect(saved).toEqual(entry);
    expect(saved).toMatchObject({
      access_token: 'at-1',
      refresh_token: 'rt-1',
      id_token: 'id-1',
      scope: 'openid photo',
      token_endpoint: SOURCE.tokenEndpoint,
      client_id: 'photo-cli',
      auth_method: 'none',
      issuer: SOURCE.issuer,
      expires_at: clock / 1000 + 300,
      obtained_at: clock / 1000,
    });
    expect(JSON.stringify(saved)).not.toMatch(/secret/);
  });

  it('keys an entry without a profile by issuer and client id', async () => {
    const a = cacheFileName({ issuer: 'https://a.example', clientId: 'x' });
    expect(a).toMatch(/^client-[0-9a-f]{24}\.json$/);
    expect(cacheFileName({ issuer: 'https://a.example', clientId: 'y' })).not.toBe(a);
    expect(cacheFileName({ issuer: 'https://b.example', clientId: 'x' })).not.toBe(a);
    expect(() => cacheFileName({})).toThrow(/which cached login/);
    await saveTokens(cache, { issuer: 'https://a.example', clientId: 'x' }, { access_token: 'at' }, SOURCE);
    expect((await readCachedTokens(cache, { issuer: 'https://a.example', clientId: 'x' }))?.access_token).toBe('at');
  });

  it('lists and forgets entries', async () => {
    await saveTokens(cache, { profile: 'a' }, { access_token: '1' }, SOURCE);
    await saveTokens(cache, { profile: 'b' }, { access_token: '2' }, SOURCE);
    expect((await listCachedTokens(cache)).map((e) => e.entry.access_token)).toEqual(['1', '2']);
    expect(await forgetTokens(cache, { profile: 'a' })).toBe(true);
    expect(await forgetTokens(cache, { profile: 'a' })).toBe(false);
    expect((await listCachedTokens(cache)).map((e) => e.entry.profile)).toEqual(['b']);
  });

  it('takes the expiry from a JWT access token when expires_in is absent', async () => {
    const jwt = ['{"alg":"none"}', `{"exp":${clock / 1000 + 99}}`].map((p) => Buffer.from(p).toString('base64url')).join('.') + '.sig';
    const entry = await saveTokens(cache, { profile: 'j' }, { access_token: jwt }, SOURCE);
    expect(entry.expires_at).toBe(clock / 1000 + 99);
  });

  it('says a damaged file is damaged', async () => {
    await saveTokens(cache, { profile: 'd' }, { access_token: '1' }, SOURCE);
    writeFileSync(join(dir, 'tokens', 'profile-d.json'), '{"version":1');
    await expect(readCachedTokens(cache, { profile: 'd' })).rejects.toThrow(/damaged/);
  });
});

describe('expiry and refresh (time injected)', () => {
  const key = { profile: 'p' };

  it('moves from valid to expired as the clock passes expires_at minus the skew', async () => {
    const entry = await saveTokens(cache, key, { access_token: 'at', expires_in: 120 }, SOURCE);
    expect(tokenState(entry, clock)).toBe('valid');
    expect(tokenState(entry, clock + 89_000)).toBe('valid');
    expect(tokenState(entry, clock + 90_000)).toBe('expired');
    expect(tokenState(entry, clock + 90_000, 0)).toBe('valid');
    expect(tokenState({ ...entry, expires_at: undefined } as CachedTokens, clock + 1e9)).toBe('no-expiry');
  });

  it('returns the cached token while valid and refreshes once it expires, keeping what the server did not replace', async () => {
    await saveTokens(cache, key, { access_token: 'at-1', refresh_token: 'rt-1', id_token: 'id-1', scope: 'photo', expires_in: 300 }, SOURCE);
    const seen: string[] = [];
    const refresh = async (entry: CachedTokens & { refresh_token: string }) => {
      seen.push(entry.refresh_token);
      return { access_token: `at-${seen.length + 1}`, expires_in: 300 };
    };
    expect(await getValidAccessToken(cache, key, { refresh })).toMatchObject({ accessToken: 'at-1', refreshed: false });
    clock += 301_000;
    const fresh = await getValidAccessToken(cache, key, { refresh });
    expect(fresh).toMatchObject({ accessToken: 'at-2', refreshed: true });
    expect(seen).toEqual(['rt-1']);
    const saved = await readCachedTokens(cache, key);
    expect(saved).toMatchObject({ access_token: 'at-2', refresh_token: 'rt-1', id_token: 'id-1', scope: 'photo', expires_at: clock / 1000 + 300 });
    expect(await getValidAccessToken(cache, key, { refresh })).toMatchObject({ accessToken: 'at-2', refreshed: false });
  });

  it('fails with exit 1 and says to log in when expired without a refresh token, or when nothing is cached', async () => {
    await saveTokens(cache, key, { access_token: 'at', expires_in: 10 }, SOURCE);
    clock += 3_600_000;
    const refresh = async () => ({ access_token: 'never' });
    await expect(getValidAccessToken(cache, key, { refresh })).rejects.toSatisfy(
      (e: unknown) => e instanceof FlowError && /no refresh token/.test(e.message) && /oauthctl login --profile p/.test(e.hint ?? ''),
    );
    await expect(getValidAccessToken(cache, { profile: 'other' }, { refresh })).rejects.toThrow(/no cached login for profile "other"/);
  });

  it('reports a refused refresh as a flow failure', async () => {
    await saveTokens(cache, key, { access_token: 'at', refresh_token: 'rt', expires_in: 10 }, SOURCE);
    clock += 60_000;
    const refresh = async () => Promise.reject(new Error('invalid_grant: refresh token revoked'));
    await expect(getValidAccessToken(cache, key, { refresh })).rejects.toThrow(/refreshing the cached token .* failed: invalid_grant/);
  });

  it('refreshCached refreshes a token the resource rejected, but not one another run already replaced', async () => {
    await saveTokens(cache, key, { access_token: 'rejected', refresh_token: 'rt', expires_in: 3600 }, SOURCE);
    let calls = 0;
    const refresh = async () => ({ access_token: `new-${++calls}`, refresh_token: `rt-${calls}` });
    expect(await refreshCached(cache, key, 'rejected', { refresh })).toMatchObject({ accessToken: 'new-1', refreshed: true });
    expect(await refreshCached(cache, key, 'rejected', { refresh })).toMatchObject({ accessToken: 'new-1', refreshed: false });
    expect(calls).toBe(1);
  });
});

describe('two processes at once', () => {
  it('two concurrent writers never corrupt the file', async () => {
    const tokens = join(dir, 'tokens');
    await Promise.all([run(process.execPath, ['--import', 'tsx', WRITER, 'write', tokens, 'one', '60']), run(process.execPath, ['--import', 'tsx', WRITER, 'write', tokens, 'two', '60'])]);
    const saved = await readCachedTokens(openTokenCache({}, { dir: tokens }), { profile: 'shared' });
    expect(saved?.access_token).toMatch(/^(one|two)-59-x+$/);
    expect(saved?.refresh_token).toBe(saved?.access_token.replace(/-59-x+$/, '-rt-59'));
    expect(readdirSync(tokens)).toEqual(['profile-shared.json']);
  });

  it('two concurrent runs with an expired token spend the refresh token once', async () => {
    const tokens = join(dir, 'tokens');
    const past = openTokenCache({}, { dir: tokens, now: () => Date.now() - 7_200_000 });
    await saveTokens(past, { profile: 'shared' }, { access_token: 'old', refresh_token: 'rt-0', expires_in: 60 }, SOURCE);
    const log = join(dir, 'refresh.log');
    const [a, b] = await Promise.all([run(process.execPath, ['--import', 'tsx', WRITER, 'refresh', tokens, log]), run(process.execPath, ['--import', 'tsx', WRITER, 'refresh', tokens, log])]);
    const refreshes = readFileSync(log, 'utf8').trim().split('\n');
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]).toMatch(/ rt-0$/);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toMatch(/^fresh-from-\d+$/);
  });
});
