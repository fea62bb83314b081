import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMockServer, loadMockConfig, MockConfigError, validateMockConfig, parseConfigText } from '../../src/mock/index.js';
import { matchRedirectUri } from '../../src/mock/core/clients/redirect-uri.js';

function errorsOf(input: unknown): string[] {
  const result = validateMockConfig(input);
  return result.ok ? [] : result.errors;
}

describe('mock configuration', () => {
  it('no config gives the contract defaults', () => {
    const result = validateMockConfig(undefined);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { config } = result;
    expect(config.users.get('alice')?.password).toBe('wonderland');
    expect(config.clients.get('photo-web')).toMatchObject({ clientSecret: 'photo-web-secret', tokenEndpointAuthMethod: 'client_secret_basic', requirePkce: false, consent: true });
    expect(config.clients.get('photo-cli')).toMatchObject({ tokenEndpointAuthMethod: 'none', requirePkce: true, allowPlainPkce: false });
    expect(config.clients.get('photo-cli')?.redirectUris).toEqual(['http://127.0.0.1/callback', 'http://localhost/callback', 'http://[::1]/callback']);
    expect([...config.scopes.keys()]).toEqual(['photo', 'offline_access', 'openid', 'profile', 'email']);
    expect(config.lifetimes).toEqual({ code: 60, accessToken: 3600, refreshToken: 86400, idToken: 3600 });
    expect(config.signingAlg).toBe('RS256');
    expect(config.accessTokenFormat).toBe('jwt');
  });

  it.each([
    [
      {
        clients: [
          { client_id: 'a', redirect_uris: ['http://127.0.0.1/cb'] },
          { client_id: 'b', redirect_uris: ['not a url'] },
        ],
      },
      'clients[1].redirect_uris[0]: must be an absolute URL',
    ],
    [{ clients: [{ client_id: 'a', redirect_uris: ['https://x/cb#frag'] }] }, 'clients[0].redirect_uris[0]: must not contain a fragment'],
    [{ clients: [{ client_id: 'a', redirect_uris: [] }] }, 'clients[0].redirect_uris: must be a non-empty array'],
    [{ clients: [{ client_id: 'a', redirect_uris: ['https://x/'], scopes: ['admin'] }] }, 'clients[0].scopes[0]: must be one of the configured scopes'],
    [
      { clients: [{ client_id: 'a', redirect_uris: ['https://x/'], token_endpoint_auth_method: 'private_key_jwt' }] },
      'clients[0].token_endpoint_auth_method: is "private_key_jwt" but the client has neither jwks nor jwks_uri',
    ],
    [{ clients: [{ client_id: 'a', redirect_uris: ['https://x/'], token_endpoint_auth_method: 'client_secret_magic' }] }, 'clients[0].token_endpoint_auth_method: must be one of'],
    [
      { clients: [{ client_id: 'a', redirect_uris: ['https://x/'], token_endpoint_auth_method: 'client_secret_post' }] },
      'clients[0].token_endpoint_auth_method: is "client_secret_post" but the client has no client_secret',
    ],
    [{ clients: [{ client_id: 'a', redirect_uris: ['https://x/'], consent: 'no' }] }, 'clients[0].consent: must be true or false'],
    [
      {
        clients: [
          { client_id: 'a', redirect_uris: ['https://x/'] },
          { client_id: 'a', redirect_uris: ['https://x/'] },
        ],
      },
      'clients[1].client_id: duplicate client_id "a"',
    ],
    [{ clients: [{ client_id: 'a', redirect_uris: ['https://x/'], redirect_uri: 'typo' }] }, 'clients[0].redirect_uri: unknown field'],
    [{ users: [{ username: 'u' }] }, 'users[0].password: must be a non-empty string'],
    [{ users: [{ username: 'u', password: 'p', claims: { sub: 7 } }] }, 'users[0].claims.sub: must be a non-empty string'],
    [{ scopes: ['photo', 'bad scope'] }, 'scopes[1].name: must be a scope token'],
    [{ lifetimes: { code: 0 } }, 'lifetimes.code: must be a whole number of seconds'],
    [{ lifetimes: { access: 5 } }, 'lifetimes.access: unknown field'],
    [{ signing_alg: 'HS256' }, 'signing_alg: must be one of RS256, PS256, ES256'],
    [{ access_token_format: 'reference' }, 'access_token_format: must be one of jwt, opaque'],
    [{ clients: [] }, 'clients: must be a non-empty array'],
    [[1, 2], '(top level): must be a JSON object'],
  ])('%j -> %s', (input, expected) => {
    const errors = errorsOf(input);
    expect(errors.some((e) => e.startsWith(expected))).toBe(true);
  });

  it('collects every error, and createMockServer throws them', async () => {
    const input = { clients: [{ client_id: '', redirect_uris: 'x' }], signing_alg: 'none' };
    expect(errorsOf(input)).toHaveLength(3);
    await expect(createMockServer(input as never)).rejects.toBeInstanceOf(MockConfigError);
    await expect(createMockServer(undefined, { autoLogin: 'nobody' })).rejects.toThrow(/auto-login: no user "nobody"/);
  });

  it('"//" keys are comments', () => {
    expect(validateMockConfig({ '//': 'note', clients: [{ '// why': 'x', client_id: 'a', redirect_uris: ['https://x/'] }] }).ok).toBe(true);
  });

  it('JSONC: comments and trailing commas outside strings are allowed, strings are kept as written', async () => {
    const text = '{\n // c\n "a": "http://x/*y*/", /* block */ "b": [1, 2,],\n "c": "// not a comment",\n}';
    expect(await parseConfigText(text, 'c.jsonc')).toEqual({ ok: true, value: { a: 'http://x/*y*/', b: [1, 2], c: '// not a comment' } });
  });

  it.each([
    ['a missing value in a list', '{\n  "clients": [ , ]\n}', 'c.jsonc:2:16: not valid JSON: a value was expected'],
    ['an unclosed block comment', '{\n  "users": [],\n  /* the rest\n  "clients": []\n}', 'c.jsonc:3:3: not valid JSON: a comment /* is not closed with */'],
    ['a missing comma', '{\n  "a": 1\n  "b": 2\n}', 'c.jsonc:3:3: not valid JSON: a comma was expected'],
    ['an unclosed string', '{\n  "a": "x\n}', 'c.jsonc:2:8: not valid JSON: a string is not closed'],
  ])('%s is an error at the line and column of the file as written', async (_what, text, expected) => {
    const result = await parseConfigText(text, 'c.jsonc');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors[0]).toBe(expected);
  });

  it('the line and column count from the file as written, byte order mark and comments included', async () => {
    const result = await parseConfigText('\uFEFF// one\n/* two\n three */ {\n "a": tru\n}', 'c.jsonc');
    expect(!result.ok && result.errors[0]).toMatch(/^c\.jsonc:4:7: not valid JSON/);
  });

  it('a configuration nested deeper than 100 levels is refused in one line', async () => {
    const result = await parseConfigText(`{"a":${'['.repeat(200)}${']'.repeat(200)}}`, 'deep.json');
    expect(result).toEqual({ ok: false, errors: ['deep.json: nested more than 100 levels deep: refused'] });
  });

  it('the fixtures load and validate', async () => {
    for (const name of ['example.jsonc', 'minimal.json', 'fast.json', 'byo-mcp.jsonc']) {
      const input = await loadMockConfig(join('fixtures/mock', name));
      const result = validateMockConfig(input);
      expect(result.ok ? [] : result.errors).toEqual([]);
    }
  });

  it('loadMockConfig names the file on unreadable or invalid JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauthctl-mock-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ "clients": ');
    await expect(loadMockConfig(bad)).rejects.toThrow(/bad\.json:1:14: not valid JSON: a value was expected$/);
    await expect(loadMockConfig(join(dir, 'missing.json'))).rejects.toThrow(/missing\.json: cannot read the file \(ENOENT\)/);
  });
});

describe('redirect URI matching', () => {
  const registered = ['http://127.0.0.1/callback', 'http://[::1]/callback', 'com.example.app:/oauth2redirect', 'https://app.example/cb'];
  it.each([
    ['http://127.0.0.1:1/callback', true],
    ['http://127.0.0.1:65535/callback', true],
    ['http://127.0.0.1:65536/callback', false],
    ['http://[::1]:8080/callback', true],
    ['http://localhost:8080/callback', false],
    ['http://127.0.0.1:8080/Callback', false],
    ['http://127.0.0.1:8080/callback/', false],
    ['http://127.0.0.1:8080/callback#x', false],
    ['http://127.0.0.1:8080/%63allback', false],
    ['com.example.app:/oauth2redirect', true],
    ['https://app.example/cb', true],
    ['https://app.example:443/cb', false],
  ])('%s -> %s', (uri, expected) => {
    expect(matchRedirectUri(registered, uri)).toBe(expected);
  });
});
