import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../src/mock/core/config/config-text.js';
import { validateMockConfig } from '../src/mock/index.js';
import { configProblem } from '../src/store/config-store.js';

/**
 * The JSON Schemas shipped in schemas/ (for editors: "$schema" in a file names one) are checked
 * against what the program itself accepts: every fixture and docs example validates, and a set of
 * wrong files is refused by both the schema and the start-up validation.
 */
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const mockSchema = ajv.compile(JSON.parse(readFileSync('schemas/mock-config.schema.json', 'utf8')) as object);
const profilesSchema = ajv.compile(JSON.parse(readFileSync('schemas/profiles.schema.json', 'utf8')) as object);

async function jsonc(text: string, file: string): Promise<unknown> {
  const result = await parseConfigText(text, file);
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.value;
}

const fixtureFiles = ['fixtures/mock', 'fixtures/audit'].flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => /\.jsonc?$/.test(f))
    .map((f) => join(dir, f)),
);

/** The ```json and ```jsonc blocks of the docs that name one of the schemas. */
function docsBlocks(): { where: string; text: string; schema: string }[] {
  const blocks: { where: string; text: string; schema: string }[] = [];
  for (const page of ['README.md', ...readdirSync('docs').map((f) => join('docs', f))].filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(page, 'utf8');
    for (const m of text.matchAll(/^```jsonc?\n([\s\S]*?)^```/gm)) {
      const schema = /"\$schema":\s*"[^"]*\/schemas\/([a-z-]+)\.schema\.json"/.exec(m[1])?.[1];
      const line = text.slice(0, m.index).split('\n').length;
      if (schema) blocks.push({ where: `${page}:${line}`, text: m[1], schema });
      // A block that is a whole mock configuration or profiles file names its schema.
      else expect(m[1], `${page}:${line} looks like a configuration file but has no "$schema"`).not.toMatch(/^\{\s*"(profiles|clients|users|scopes|issuers|resources)"/);
    }
  }
  return blocks;
}

describe('the JSON Schemas', () => {
  it.each(fixtureFiles)('%s names the mock configuration schema and validates against it, as it does at start-up', async (file) => {
    const value = await jsonc(readFileSync(file, 'utf8'), file);
    expect((value as Record<string, unknown>).$schema).toBe('../../schemas/mock-config.schema.json');
    expect(mockSchema(value), JSON.stringify(mockSchema.errors)).toBe(true);
    expect(validateMockConfig(value).ok).toBe(true);
  });

  it('every configuration example of the docs names its schema and validates against it', async () => {
    const blocks = docsBlocks();
    expect(blocks.map((b) => b.schema).sort()).toEqual(expect.arrayContaining(['mock-config', 'profiles']));
    for (const block of blocks) {
      const value = await jsonc(block.text, block.where);
      const validate = block.schema === 'profiles' ? profilesSchema : mockSchema;
      expect(validate(value), `${block.where}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  const wrongMockConfigs: [string, unknown][] = [
    ['an unknown top-level field', { client: [] }],
    ['clients not an array', { clients: {} }],
    ['an empty client list', { clients: [] }],
    ['a client without client_id', { clients: [{ redirect_uris: ['http://127.0.0.1/cb'] }] }],
    ['an unknown client field', { clients: [{ client_id: 'a', redirect_uris: ['http://127.0.0.1/cb'], redirect_uri: 'x' }] }],
    ['a redirect URI with a fragment', { clients: [{ client_id: 'a', redirect_uris: ['http://127.0.0.1/cb#x'] }] }],
    ['a javascript: redirect URI', { clients: [{ client_id: 'a', redirect_uris: ['javascript:alert(1)'] }] }],
    ['a redirect URI with a space', { clients: [{ client_id: 'a', redirect_uris: ['http://127.0.0.1/my cb'] }] }],
    ['an http redirect URI off loopback', { clients: [{ client_id: 'a', redirect_uris: ['http://app.example/cb'] }] }],
    ['a private-use scheme without a dot', { clients: [{ client_id: 'a', redirect_uris: ['myapp:/cb'] }] }],
    ['a vbscript: redirect URI', { clients: [{ client_id: 'a', redirect_uris: ['vbscript:msgbox(1)'] }] }],
    ['a wildcard in a redirect URI', { clients: [{ client_id: 'a', redirect_uris: ['https://*.example/cb'] }] }],
    ['an unknown grant type', { clients: [{ client_id: 'a', redirect_uris: ['http://127.0.0.1/cb'], grant_types: ['password'] }] }],
    ['an unknown auth method', { clients: [{ client_id: 'a', client_secret: 's', token_endpoint_auth_method: 'client_secret_magic' }] }],
    ['private_key_jwt without keys', { clients: [{ client_id: 'a', token_endpoint_auth_method: 'private_key_jwt', grant_types: ['client_credentials'] }] }],
    ['tls_client_auth without a subject', { clients: [{ client_id: 'a', token_endpoint_auth_method: 'tls_client_auth', grant_types: ['client_credentials'] }] }],
    ['"none" with a secret', { clients: [{ client_id: 'a', client_secret: 's', token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1/cb'] }] }],
    ['a secret method without a secret', { clients: [{ client_id: 'a', token_endpoint_auth_method: 'client_secret_post', grant_types: ['client_credentials'] }] }],
    ['jwks and jwks_uri both', { clients: [{ client_id: 'a', jwks: { keys: [{ kty: 'EC' }] }, jwks_uri: 'https://a.example/jwks', grant_types: ['client_credentials'] }] }],
    ['a private key in jwks', { clients: [{ client_id: 'a', jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }] }, grant_types: ['client_credentials'] }] }],
    ['a user without a password', { users: [{ username: 'bob' }] }],
    ['a scope with a space', { scopes: ['read write'] }],
    ['a lifetime of zero', { lifetimes: { code: 0 } }],
    ['a lifetime that is not whole', { lifetimes: { access_token: 1.5 } }],
    ['an unknown lifetime', { lifetimes: { session: 10 } }],
    ['an unknown signing algorithm', { signing_alg: 'HS256' }],
    ['an unknown access token format', { access_token_format: 'paseto' }],
    ['a device interval of an hour and more', { device_interval: 3601 }],
    ['an issuer name with a slash', { issuers: { 'a/b': {} } }],
    ['TLS in a named issuer', { issuers: { a: { tls_client_auth_ca: 'ca.pem' } } }],
    ['a protected resource path with a trailing slash', { protected_resources: [{ path: '/mcp/', scopes: [] }] }],
    ['a protected resource without scopes', { protected_resources: [{ path: '/mcp' }] }],
    ['an unknown registration field', { registration: { public: true } }],
    ['a short initial access token', { registration: { initial_access_token: 'short' } }],
    ['a flag that is not true or false', { dpop_nonce: 'yes' }],
    ['an unknown MCP field', { mcp: { tools: {} } }],
    ['outbound.private_networks not a boolean', { outbound: { private_networks: 'yes' } }],
    ['an unknown outbound field', { outbound: { loopback: false } }],
    ['outbound in a named issuer (one server, one network: top level only)', { issuers: { lab: { outbound: { private_networks: true } } } }],
    ['a security profile other than fapi2', { security_profile: 'fapi1' }],
    ['an empty authorization details type', { authorization_details_types: [''] }],
    ['scopes for a tool the MCP server does not have', { mcp: { tool_scopes: { delete_all: ['photo'] } } }],
    ['resource metadata in the 2025-03-26 revision', { mcp: { revision: '2025-03-26', resource_metadata: 'root' } }],
    ['an unknown MCP client mode', { mcp: { clients: 'pre-registered' } }],
    ['an MCP identity provider with both kinds of keys', { mcp: { identity_providers: [{ issuer: 'https://idp.example', jwks: { keys: [{ kty: 'EC' }] }, jwks_uri: 'https://idp.example/jwks' }] } }],
    [
      'a CIBA ping client without its notification endpoint',
      { clients: [{ client_id: 'a', client_secret: 's', grant_types: ['urn:openid:params:grant-type:ciba'], backchannel_token_delivery_mode: 'ping' }] },
    ],
    ['a CIBA push client', { clients: [{ client_id: 'a', client_secret: 's', grant_types: ['urn:openid:params:grant-type:ciba'], backchannel_token_delivery_mode: 'push' }] }],
    ['a post-logout redirect URI that is not http', { clients: [{ client_id: 'a', redirect_uris: ['http://127.0.0.1/cb'], post_logout_redirect_uris: ['ftp://x/'] }] }],
  ];

  it.each(wrongMockConfigs)('the schema and the mock at start-up both refuse %s', (_what, config) => {
    expect(validateMockConfig(config).ok).toBe(false);
    expect(mockSchema(config)).toBe(false);
  });

  it('the schema and the mock at start-up both take comments ("//" keys) and "$schema"', () => {
    const config = {
      $schema: 'x',
      '//': 'note',
      clients: [{ '// why': 'x', client_id: 'a', redirect_uris: ['http://127.0.0.1/cb', 'https://app.example/cb', 'com.example.app:/cb', 'http://[::1]:8080/cb'] }],
    };
    expect(validateMockConfig(config).ok).toBe(true);
    expect(mockSchema(config), JSON.stringify(mockSchema.errors)).toBe(true);
  });

  const wrongProfiles: [string, unknown][] = [
    ['a top level that is a list', []],
    ['a misspelt top-level field', { profile: {} }],
    ['profiles not an object', { profiles: [] }],
    ['a profile name with a slash', { profiles: { 'a/b': {} } }],
    ['an unknown profile field', { profiles: { work: { client: 'x' } } }],
    ['an issuer that is not http', { profiles: { work: { issuer: 'ftp://id.example' } } }],
    ['an empty client id', { profiles: { work: { client_id: '' } } }],
    ['pkce as a string', { profiles: { work: { pkce: 'true' } } }],
    ['an unknown auth method', { profiles: { work: { auth_method: 'private_key_jwt' } } }],
    ['a plain code challenge method in lower case', { profiles: { work: { code_challenge_method: 's256' } } }],
    ['a parameter that is not a string', { profiles: { work: { params: { max_age: 0 } } } }],
    ['an environment variable name with a dash', { profiles: { work: { client_secret_env: 'WORK-SECRET' } } }],
    ['a host with a path', { profiles: { work: { host: 'git.example/x' } } }],
    ['an unknown token store', { profiles: { work: { token_store: 'vault' } } }],
  ];

  it.each(wrongProfiles)('the schema and the profiles file reader both refuse %s', (_what, config) => {
    expect(configProblem(config)).toBeDefined();
    expect(profilesSchema(config)).toBe(false);
  });

  it('the schema and the profiles file reader both take a full profile, "$schema" and comments', () => {
    const config = {
      $schema: 'x',
      '//': 'note',
      profiles: {
        work: { issuer: 'https://id.example', client_id: 'web', client_secret_env: 'WORK_SECRET', pkce: true, params: { prompt: 'consent' }, host: '127.0.0.1:8443', token_store: 'keyring' },
      },
    };
    expect(configProblem(config)).toBeUndefined();
    expect(profilesSchema(config), JSON.stringify(profilesSchema.errors)).toBe(true);
  });
});
