import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMockConfig, validateMockConfig, type MockConfigInput } from '../../src/mock/index.js';
import { createPkcePair } from '../../src/oauth/pkce.js';
import { runCli } from '../helpers/cli.js';
import { basic, getCode, pkceRequest, postForm, REDIRECT_URI, startMock } from './helpers.js';

const errorsOf = (input: unknown) => {
  const r = validateMockConfig(input);
  return r.ok ? [] : r.errors;
};

describe('client authentication methods, as Keycloak and Entra ID register them', () => {
  async function webCode(server: Awaited<ReturnType<typeof startMock>>, clientId = 'photo-web'): Promise<string> {
    return getCode(server, pkceRequest(createPkcePair(), { client_id: clientId, code_challenge: undefined, code_challenge_method: undefined }));
  }

  it('photo-web (a secret, no method named) takes client_secret_basic and client_secret_post', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const viaBasic = await postForm(
      `${server.authUrl}/token`,
      { grant_type: 'authorization_code', code: await webCode(server), redirect_uri: REDIRECT_URI },
      { authorization: basic('photo-web', 'photo-web-secret') },
    );
    expect(viaBasic.status).toBe(200);
    const viaPost = await postForm(`${server.authUrl}/token`, {
      grant_type: 'authorization_code',
      code: await webCode(server),
      redirect_uri: REDIRECT_URI,
      client_id: 'photo-web',
      client_secret: 'photo-web-secret',
    });
    expect(viaPost.status).toBe(200);
    const both = await postForm(
      `${server.authUrl}/token`,
      { grant_type: 'authorization_code', code: await webCode(server), redirect_uri: REDIRECT_URI, client_secret: 'photo-web-secret' },
      { authorization: basic('photo-web', 'photo-web-secret') },
    );
    expect(both).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('a client that names token_endpoint_auth_method accepts only that one', async () => {
    const config: MockConfigInput = {
      clients: [
        { client_id: 'basic-only', client_secret: 'b', token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [REDIRECT_URI] },
        { client_id: 'post-only', client_secret: 'p', token_endpoint_auth_method: 'client_secret_post', redirect_uris: [REDIRECT_URI] },
      ],
    };
    const server = await startMock(config, { autoLogin: 'alice' });
    const post = await postForm(`${server.authUrl}/token`, {
      grant_type: 'authorization_code',
      code: await webCode(server, 'basic-only'),
      redirect_uri: REDIRECT_URI,
      client_id: 'basic-only',
      client_secret: 'b',
    });
    expect(post).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(String(post.body.error_description)).toMatch(/registered for client_secret_basic, but the request used client_secret_post/);
    const viaBasic = await postForm(
      `${server.authUrl}/token`,
      { grant_type: 'authorization_code', code: await webCode(server, 'post-only'), redirect_uri: REDIRECT_URI },
      { authorization: basic('post-only', 'p') },
    );
    expect(viaBasic.status).toBe(401);
    expect(String(viaBasic.body.error_description)).toMatch(/registered for client_secret_post, but the request used client_secret_basic/);
  });

  it('photo-service: confidential, no redirect URI, not registered for the code grant', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const service = server.config.clients.get('photo-service')!;
    expect(service).toMatchObject({ clientSecret: 'photo-service-secret', redirectUris: [], tokenEndpointAuthMethods: ['client_secret_basic', 'client_secret_post'] });
    expect([...service.grantTypes]).toEqual(['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange']);
    expect([...server.config.clients.get('photo-web')!.grantTypes]).toEqual([
      'authorization_code',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:openid:params:grant-type:ciba',
    ]);
    const page = await fetch(`${server.authUrl}/authorize?client_id=photo-service&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&response_type=code&state=s`, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(await page.text()).toMatch(/not registered for the authorization_code grant/);
    const refresh = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: 'x' }, { authorization: basic('photo-service', 'photo-service-secret') });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
    const code = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT_URI }, { authorization: basic('photo-service', 'wrong') });
    expect(code).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('grant_types is validated, naming the field', () => {
    expect(errorsOf({ clients: [{ client_id: 'a', redirect_uris: [REDIRECT_URI], grant_types: ['password'] }] })[0]).toMatch(/^clients\[0\]\.grant_types\[0\]: must be one of authorization_code, /);
    expect(errorsOf({ clients: [{ client_id: 'a', redirect_uris: [REDIRECT_URI], grant_types: [] }] })[0]).toMatch(/^clients\[0\]\.grant_types: must be a non-empty array/);
    expect(errorsOf({ clients: [{ client_id: 'a', grant_types: ['authorization_code'] }] })[0]).toMatch(/^clients\[0\]\.redirect_uris: must be a non-empty array/);
    expect(errorsOf({ clients: [{ client_id: 'a', client_secret: 's', grant_types: ['client_credentials'] }] })).toEqual([]);
  });
});

describe('configuration files that cannot work are refused at start', () => {
  it.each([
    ['an IDN host', 'https://bücher.example/cb'],
    ['a newline', 'http://127.0.0.1/cb\nSet-Cookie: x=1'],
    ['a control character', 'http://127.0.0.1/c\x07b'],
    ['a space', 'http://127.0.0.1/my cb'],
  ])('a redirect URI with %s (not sendable in a Location header), naming the field', (_what, uri) => {
    const [error] = errorsOf({ clients: [{ client_id: 'a', redirect_uris: ['http://127.0.0.1/ok', uri] }] });
    expect(error).toMatch(/^clients\[0\]\.redirect_uris\[1\]: must be printable ASCII without spaces, as it is sent in a Location header/);
  });

  it('the xn-- form of an IDN host is fine', () => {
    expect(errorsOf({ clients: [{ client_id: 'a', redirect_uris: ['https://xn--bcher-kva.example/cb'] }] })).toEqual([]);
  });

  it('a file holding null (or an array, a number) is refused; a UTF-8 byte order mark is accepted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauthctl-mock-'));
    for (const [name, text, expected] of [
      ['null.json', 'null', /null\.json: must hold a JSON object .*not null/],
      ['array.json', '[]', /array\.json: must hold a JSON object .*not an array/],
      ['number.json', '42', /number\.json: must hold a JSON object .*not number/],
    ] as const) {
      writeFileSync(join(dir, name), text);
      await expect(loadMockConfig(join(dir, name))).rejects.toThrow(expected);
    }
    writeFileSync(join(dir, 'bom.json'), '\uFEFF{ "users": [{ "username": "bo", "password": "m" }] }');
    expect(await loadMockConfig(join(dir, 'bom.json'))).toEqual({ users: [{ username: 'bo', password: 'm' }] });
  });

  it('serve-mock --config with null exits 2 with one line naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauthctl-mock-'));
    const file = join(dir, 'null.json');
    writeFileSync(file, 'null\n');
    const r = await runCli(['serve-mock', '--port', '0', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/null\.json: must hold a JSON object/);
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
  });

  it('serve-mock --config with a JSONC syntax error exits 2 naming the line and column of the file (jsonc-parser, loaded from the package)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauthctl-mock-'));
    const file = join(dir, 'empty-slot.jsonc');
    writeFileSync(file, '// the clients\n{\n  "clients": [ , ],\n}\n');
    const r = await runCli(['serve-mock', '--port', '0', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/empty-slot\.jsonc:3:16: not valid JSON: a value was expected/);
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
  });

  it('serve-mock --config with an IDN redirect URI exits 2 naming the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauthctl-mock-'));
    const file = join(dir, 'idn.json');
    writeFileSync(file, JSON.stringify({ clients: [{ client_id: 'a', redirect_uris: ['https://bücher.example/cb'] }] }));
    const r = await runCli(['serve-mock', '--port', '0', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/clients\[0\]\.redirect_uris\[0\]: must be printable ASCII/);
  });
});
