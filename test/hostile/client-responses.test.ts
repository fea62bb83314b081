// What a hostile or careless server answers. A token exchange that issues
// another type than asked; metadata that sends the client's credentials to another host; a JSON body
// nested two million deep (which ended in "Maximum call stack size exceeded").
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { runCli } from '../helpers/cli.js';
import { credentialEndpointsOffIssuer } from '../../src/oauth/discovery.js';
import { issuedTokenTypeProblem, TOKEN_TYPES } from '../../src/oauth/grant-types.js';
import { jsonNestsDeeperThan, parseJson, JsonDepthError } from '../../src/oauth/json.js';

let as: RecordingServer;
beforeAll(async () => {
  as = await startRecordingServer();
});
afterAll(() => as.close());
beforeEach(() => as.reset());

const exchange = (extra: string[]) =>
  runCli([
    'token-exchange',
    '--token-endpoint',
    `${as.url}/token`,
    '--authorization-endpoint',
    `${as.url}/authorize`,
    '--client-id',
    'svc',
    '--client-secret',
    's3cret',
    '--subject-token',
    'subject',
    ...extra,
  ]);

describe('token-exchange: issued_token_type (RFC 8693 section 2.2.1)', () => {
  it('asked for an access token, given a refresh token type: a warning, no check mark', async () => {
    as.token = { body: { access_token: 'rt-looking', token_type: 'N_A', issued_token_type: TOKEN_TYPES.refresh_token } };
    const r = await exchange(['--requested-token-type', 'access_token']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`issued_token_type ${TOKEN_TYPES.refresh_token} is not the requested_token_type ${TOKEN_TYPES.access_token} (RFC 8693 section 2.2.1)`);
    expect(r.stderr).not.toMatch(/✓ issued_token_type/);
  });

  it('with --strict the mismatch fails: exit 1, one line, nothing on stdout', async () => {
    as.token = { body: { access_token: 'rt-looking', token_type: 'N_A', issued_token_type: TOKEN_TYPES.refresh_token } };
    const r = await exchange(['--requested-token-type', 'access_token', '--strict']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').filter((l) => l.startsWith('oauthctl: error:'))).toHaveLength(1);
    expect(r.stderr).toMatch(/oauthctl: error: issued_token_type .*refresh_token is not the requested_token_type/);
  });

  it('a matching type is a check mark; a missing one fails under --strict', async () => {
    as.token = { body: { access_token: 'at', token_type: 'Bearer', issued_token_type: TOKEN_TYPES.access_token } };
    const ok = await exchange(['--requested-token-type', 'access_token', '--strict']);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain(`issued_token_type: ${TOKEN_TYPES.access_token}`);
    as.token = { body: { access_token: 'at', token_type: 'Bearer' } };
    const missing = await exchange(['--strict']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('the response has no issued_token_type');
  });

  it('the rule itself', () => {
    expect(issuedTokenTypeProblem(undefined, TOKEN_TYPES.jwt)).toBeUndefined();
    expect(issuedTokenTypeProblem(TOKEN_TYPES.jwt, TOKEN_TYPES.jwt)).toBeUndefined();
    expect(issuedTokenTypeProblem(TOKEN_TYPES.access_token, TOKEN_TYPES.id_token)).toMatch(/is not the requested_token_type/);
    expect(issuedTokenTypeProblem(undefined, 42)).toMatch(/not a string/);
  });
});

describe('metadata that moves an endpoint to another host (RFC 9700 section 4.4)', () => {
  const metadata = (issuer: string, tokenEndpoint: string) => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: tokenEndpoint,
    response_types_supported: ['code'],
    grant_types_supported: ['client_credentials'],
  });

  it('warns, naming both hosts, before the request that carries the secret', async () => {
    const elsewhere = `http://localhost:${as.port}/token`;
    as.documents.set('/.well-known/oauth-authorization-server', { body: metadata(as.url, elsewhere) });
    as.token = { body: { access_token: 'at', token_type: 'Bearer', expires_in: 60 } };
    const r = await runCli(['client-credentials', '--issuer', as.url, '--client-id', 'svc', '--client-secret', 's3cret', '--no-cache']);
    expect(r.code).toBe(0);
    const warning = r.stderr.indexOf(`token_endpoint on localhost:${as.port}, another host than the issuer's 127.0.0.1:${as.port}`);
    expect(warning).toBeGreaterThan(-1);
    expect(warning).toBeLessThan(r.stderr.indexOf('Token request'));
    expect(r.stderr).toContain('RFC 9700 section 4.4');
  });

  it('no warning when every endpoint is on the issuer host', async () => {
    as.documents.set('/.well-known/oauth-authorization-server', { body: metadata(as.url, `${as.url}/token`) });
    as.token = { body: { access_token: 'at', token_type: 'Bearer', expires_in: 60 } };
    const r = await runCli(['client-credentials', '--issuer', as.url, '--client-id', 'svc', '--client-secret', 's3cret', '--no-cache']);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('another host');
  });

  it('every endpoint that receives credentials, and the mTLS aliases, are looked at', () => {
    const warnings = credentialEndpointsOffIssuer({
      issuer: 'https://as.example',
      token_endpoint: 'https://as.example/token',
      introspection_endpoint: 'https://evil.example/introspect',
      pushed_authorization_request_endpoint: 'https://as.example:8443/par',
      userinfo_endpoint: 'https://api.example/userinfo',
      mtls_endpoint_aliases: { token_endpoint: 'https://mtls.as.example/token' },
    });
    expect(warnings).toHaveLength(3);
    expect(warnings.join('\n')).toMatch(/introspection_endpoint on evil\.example/);
    expect(warnings.join('\n')).toMatch(/pushed_authorization_request_endpoint on as\.example:8443/);
    expect(warnings.join('\n')).toMatch(/mtls_endpoint_aliases\.token_endpoint on mtls\.as\.example/);
  });
});

describe('JSON nested two million deep', () => {
  const deep = `${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}`;

  it('a token response with such a member: one line, exit 1, no stack overflow', async () => {
    as.token = { body: `{"access_token":"at","token_type":"Bearer","extra":${deep}}`, contentType: 'application/json' };
    for (const json of [[], ['--json'], ['--verbose']]) {
      const r = await runCli(['client-credentials', '--token-endpoint', `${as.url}/token`, '--client-id', 'svc', '--client-secret', 's3cret', '--no-cache', ...json]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('oauthctl: error: the token response is nested more than 100 levels deep');
      expect(r.stderr).not.toMatch(/call stack|RangeError|\n\s+at /);
    }
  });

  it('metadata so nested stops discovery in one line', async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(deep);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await runCli(['login', '--issuer', issuer, '--client-id', 'c', '--no-browser', '--timeout', '2']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/oauthctl: error: discovery failed: the metadata at .* is nested more than 100 levels deep/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('the depth scan skips strings and escapes', () => {
    expect(jsonNestsDeeperThan('["[[[[[[", "\\"[[[["]', 2)).toBe(false);
    expect(jsonNestsDeeperThan('[[[1]]]', 2)).toBe(true);
    expect(() => parseJson(deep)).toThrow(JsonDepthError);
    expect(parseJson('{"a":[1,{"b":2}]}')).toEqual({ a: [1, { b: 2 }] });
  });
});
