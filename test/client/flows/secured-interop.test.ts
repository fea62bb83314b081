import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/program/main.js';
import { decodeJwtUnverified } from '../../../src/oauth/jwt.js';
import { memoryIO } from '../../agent/helpers/io.js';
import { CSJWT_SECRET, RESOURCE, startSecuredOidcProvider, type SecuredOidcProvider } from '../helpers/secured-oidc-provider.js';
import { makeCertificates, type TestCertificates } from '../helpers/secured-loopback.js';
import { homeEnv } from '../../helpers/cli.js';

let op: SecuredOidcProvider;
let nonceOp: SecuredOidcProvider;
let home: string;
beforeAll(async () => {
  op = await startSecuredOidcProvider();
  nonceOp = await startSecuredOidcProvider({ requireDpopNonce: true });
  home = mkdtempSync(join(tmpdir(), 'oauthctl-secured-home-'));
});
afterAll(async () => {
  await op.close();
  await nonceOp.close();
  rmSync(home, { recursive: true, force: true });
});

const headless = ['--pkce', '--headless', '--username', 'bob', '--password', 'anything', '--json', '--timeout', '15'];

async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const io = memoryIO(env);
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

async function login(issuer: string, ...args: string[]) {
  const r = await cli(['login', '--issuer', issuer, '--scope', 'openid', ...headless, '--no-cache', ...args]);
  return { ...r, tokens: r.code === 0 ? (JSON.parse(r.out) as Record<string, unknown>) : {} };
}

describe('interop with panva/oidc-provider 9: PAR (RFC 9126)', () => {
  it('--par pushes the request; the authorization URL carries only client_id and request_uri', async () => {
    const { code, err, tokens } = await login(op.issuer, '--client-id', 'native-cli', '--par', '--verbose');
    expect(code, err).toBe(0);
    expect(typeof tokens.access_token).toBe('string');
    expect(err).toMatch(/==> Pushed authorization request\n\s+POST http:\/\/127\.0\.0\.1:\d+\/request \(client authentication: none\)/);
    const requestUri = /request_uri=(urn:ietf:params:oauth:request_uri:[\w-]+)/.exec(err)?.[1];
    expect(requestUri).toBeDefined();
    const sent = /==> Authorization request\n\s+GET .*\n((?:\s+\S+=.*\n)+)/.exec(err)?.[1] ?? '';
    expect(
      sent
        .trim()
        .split('\n')
        .map((l) => l.trim().split('=')[0]),
    ).toEqual(['client_id', 'request_uri']);
  });

  it("url --par prints the pushed request's URL: client_id and request_uri only", async () => {
    const { code, out, err } = await cli(['url', '--issuer', op.issuer, '--client-id', 'native-cli', '--pkce', '--scope', 'openid', '--par', '--json']);
    expect(code, err).toBe(0);
    const url = new URL((JSON.parse(out) as { url: string }).url);
    expect(url.origin + url.pathname).toBe(`${op.issuer}/auth`);
    expect([...url.searchParams.keys()]).toEqual(['client_id', 'request_uri']);
  });

  it('a client that must use PAR (require_pushed_authorization_requests) is refused without --par', async () => {
    expect((await login(op.issuer, '--client-id', 'par-cli', '--par')).code).toBe(0);
    const without = await login(op.issuer, '--client-id', 'par-cli');
    expect(without.code).toBe(1);
    expect(without.err).toMatch(/invalid_request: Pushed Authorization Request must be used/);
  });

  it('--par with a confidential client authenticates the push (client_secret_jwt)', async () => {
    const { code, err } = await login(op.issuer, '--client-id', 'csjwt-app', '--client-secret', CSJWT_SECRET, '--auth-method', 'client_secret_jwt', '--par');
    expect(err).toMatch(/client authentication: client_secret_jwt/);
    expect(code, err).toBe(0);
  });
});

describe('interop: DPoP (RFC 9449)', () => {
  it('--dpop: proofs on the token request, dpop_jkt on the authorization request, token_type DPoP', async () => {
    const { code, err, tokens } = await login(op.issuer, '--client-id', 'dpop-cli', '--dpop');
    expect(code, err).toBe(0);
    expect(tokens.token_type).toBe('DPoP');
    const jkt = /DPoP key thumbprint \(dpop_jkt\): ([\w-]+)/.exec(err)?.[1];
    expect(err).toContain(`dpop_jkt=${jkt}`);
    // The narration shows the proof's header and claims, the key by its thumbprint only.
    expect(err).toMatch(
      /DPoP proof: header \{"typ":"dpop\+jwt","alg":"ES256","jwk":"\[EC P-256 public key, thumbprint [\w-]+\]"\} claims \{"jti":"[\w-]+","htm":"POST","htu":"http:\/\/127\.0\.0\.1:\d+\/token","iat":\d+\}/,
    );
    expect(err).not.toMatch(/"x":"/);
  });

  it("answers the server's DPoP-Nonce with one retry (use_dpop_nonce)", async () => {
    const { code, err, tokens } = await login(nonceOp.issuer, '--client-id', 'dpop-cli', '--dpop');
    expect(code, err).toBe(0);
    expect(tokens.token_type).toBe('DPoP');
    expect(err).toContain('the server asked for a DPoP nonce (use_dpop_nonce); sending the request again with it');
    expect(err).toMatch(/"nonce":"[\w-]+"/);
  });

  it('the key is cached with the tokens (0600): token, refresh and call keep working with proofs', async () => {
    const env = homeEnv(home);
    const first = await cli(['login', '--issuer', nonceOp.issuer, '--client-id', 'dpop-cli', '--dpop', '--scope', 'openid offline_access', '--param', 'prompt=consent', ...headless], env);
    expect(first.code, first.err).toBe(0);
    const dir = join(home, 'state', 'oauthctl', 'tokens');
    const [file] = readdirSync(dir);
    const entry = JSON.parse(readFileSync(join(dir, file!), 'utf8')) as { token_type: string; client_keys: { dpop_jwk: Record<string, string> } };
    expect(entry.token_type).toBe('DPoP');
    expect(entry.client_keys.dpop_jwk.d).toMatch(/^[\w-]{43}$/);
    expect(statSync(join(dir, file!)).mode & 0o777).toBe(0o600);

    const token = await cli(['token', '--json'], env);
    expect(token.code).toBe(0);
    expect(JSON.parse(token.out)).toMatchObject({ access_token: (JSON.parse(first.out) as { access_token: string }).access_token, token_type: 'DPoP', dpop_jkt: expect.stringMatching(/^[\w-]{43}$/) });

    // call: Authorization: DPoP with a proof carrying ath, and the resource server's nonce answered.
    const userinfo = `${nonceOp.issuer}/me`;
    const called = await cli(['call', userinfo, '--verbose'], env);
    expect(called.err).toMatch(/> authorization: DPoP \[redacted/);
    expect(called.err).toMatch(/"ath":"[\w-]{43}"/);
    expect(called.code).toBe(0);
    expect(JSON.parse(called.out)).toHaveProperty('sub', 'bob');

    // refresh: the refresh token of a public client is bound to the key too (RFC 9449 section 5).
    const refreshToken = (JSON.parse(first.out) as { refresh_token: string }).refresh_token;
    const jwk = join(home, 'dpop.jwk.json');
    (await import('node:fs')).writeFileSync(jwk, JSON.stringify(entry.client_keys.dpop_jwk), { mode: 0o600 });
    const refreshed = await cli(['refresh', '--issuer', nonceOp.issuer, '--client-id', 'dpop-cli', '--refresh-token', refreshToken, '--dpop-key', jwk, '--json'], env);
    expect(refreshed.code).toBe(0);
    expect(JSON.parse(refreshed.out)).toHaveProperty('token_type', 'DPoP');
    const wrongKey = await cli(
      ['refresh', '--issuer', nonceOp.issuer, '--client-id', 'dpop-cli', '--refresh-token', (JSON.parse(refreshed.out) as { refresh_token: string }).refresh_token, '--dpop', '--json'],
      env,
    );
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.err).toMatch(/invalid_grant/);
  });
});

describe('interop: JWT client authentication (RFC 7523)', () => {
  it('private_key_jwt with a PEM key: iss = sub = client_id, aud the token endpoint, jti, exp 60 s after iat', async () => {
    const { code, err } = await login(op.issuer, '--client-id', 'pkjwt-cli', '--auth-method', 'private_key_jwt', '--signing-key', op.signingKeyPem);
    expect(code, err).toBe(0);
    const claims = JSON.parse(/client assertion \(private_key_jwt\): header \{[^}]*\} claims (\{.*\})/.exec(err)?.[1] ?? '{}') as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: 'pkjwt-cli', sub: 'pkjwt-cli', aud: `${op.issuer}/token` });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(60);
    expect(claims.jti).toMatch(/^[\w-]{22}$/);
  });

  it('private_key_jwt with a JWK key (its kid in the header)', async () => {
    const { code, err } = await login(op.issuer, '--client-id', 'pkjwt-cli', '--auth-method', 'private_key_jwt', '--signing-key', op.signingKeyJwk);
    expect(err).toMatch(/header \{"alg":"ES256","typ":"JWT","kid":"client-key-1"\}/);
    expect(code, err).toBe(0);
  });

  it('--client-assertion-audience issuer sends the issuer identifier as aud (accepted too)', async () => {
    const { code, err } = await login(op.issuer, '--client-id', 'pkjwt-cli', '--auth-method', 'private_key_jwt', '--signing-key', op.signingKeyPem, '--client-assertion-audience', 'issuer');
    expect(err).toMatch(new RegExp(`"aud":"${op.issuer}"`));
    expect(code, err).toBe(0);
  });

  it('a key the client did not register is refused with invalid_client (exit 1)', async () => {
    const { code, err } = await login(op.issuer, '--client-id', 'pkjwt-cli', '--auth-method', 'private_key_jwt', '--signing-key', op.strangerKeyPem);
    expect(code).toBe(1);
    expect(err).toMatch(/oauthctl: error: invalid_client/);
  });

  it('client_secret_jwt (HS256 keyed by the secret)', async () => {
    const { code, err } = await login(op.issuer, '--client-id', 'csjwt-app', '--client-secret', CSJWT_SECRET, '--auth-method', 'client_secret_jwt');
    expect(err).toMatch(/client assertion \(client_secret_jwt\): header \{"alg":"HS256","typ":"JWT"\}/);
    expect(code, err).toBe(0);
  });
});

describe('interop: JAR (RFC 9101) and resource indicators (RFC 8707)', () => {
  it('--jar by value, for a client that must sign its requests', async () => {
    const { code, err } = await login(op.issuer, '--client-id', 'jar-cli', '--auth-method', 'private_key_jwt', '--signing-key', op.signingKeyPem, '--jar');
    expect(err).toMatch(/request object \(RFC 9101\), signed ES256: claims \{.*"iss":"jar-cli","aud":"http:\/\/127/);
    expect(code, err).toBe(0);
    const unsigned = await login(op.issuer, '--client-id', 'jar-cli', '--auth-method', 'private_key_jwt', '--signing-key', op.signingKeyPem);
    expect(unsigned.code).toBe(1);
    expect(unsigned.err).toMatch(/Request Object must be used|request object/i);
  });

  it('--jar inside PAR', async () => {
    const { code, err } = await login(op.issuer, '--client-id', 'jar-cli', '--auth-method', 'private_key_jwt', '--signing-key', op.signingKeyJwk, '--jar', '--par');
    expect(err).toMatch(/request=[\w-]+\.[\w-]+\.\[signature redacted\]/);
    expect(code, err).toBe(0);
  });

  it('--resource: the access token is issued for that resource', async () => {
    const { code, err, tokens } = await login(op.issuer, '--client-id', 'native-cli', '--scope', 'photo', '--resource', RESOURCE);
    expect(code, err).toBe(0);
    const at = decodeJwtUnverified(String(tokens.access_token));
    expect(at?.claims.aud).toBe(RESOURCE);
    expect(at?.claims.scope).toBe('photo');
  });

  it('--par --dpop --resource together', async () => {
    const { code, err, tokens } = await login(op.issuer, '--client-id', 'dpop-cli', '--scope', 'photo', '--resource', RESOURCE, '--par', '--dpop');
    expect(code, err).toBe(0);
    expect(tokens.token_type).toBe('DPoP');
    expect(decodeJwtUnverified(String(tokens.access_token))?.claims.cnf).toHaveProperty('jkt');
  });
});

describe('interop: mutual TLS (RFC 8705) with oidc-provider behind HTTPS', () => {
  let tlsOp: SecuredOidcProvider;
  let certs: TestCertificates;
  let tlsHome: string;
  beforeAll(async () => {
    certs = makeCertificates();
    tlsOp = await startSecuredOidcProvider({ tls: certs.server });
    tlsHome = mkdtempSync(join(tmpdir(), 'oauthctl-mtls-home-'));
  });
  afterAll(async () => {
    await tlsOp.close();
    certs.remove();
    rmSync(tlsHome, { recursive: true, force: true });
  });

  it('tls_client_auth gets a certificate-bound token; `call` presents the same certificate to the userinfo endpoint', async () => {
    const env = homeEnv(tlsHome);
    const mtls = ['--tls-cert', certs.clientCertFile, '--tls-key', certs.clientKeyFile, '--insecure'];
    const first = await cli(['login', '--issuer', tlsOp.issuer, '--client-id', 'mtls-cli', '--auth-method', 'tls_client_auth', '--scope', 'openid', ...mtls, ...headless], env);
    expect(first.code, first.err).toBe(0);
    const tokens = JSON.parse(first.out) as { access_token: string };
    const called = await cli(['call', `${tlsOp.issuer}/me`, '--insecure'], env);
    expect(called.code, called.err).toBe(0);
    expect(JSON.parse(called.out)).toHaveProperty('sub', 'bob');
    // Without the certificate the same token is refused: it is bound to it (RFC 8705 section 3).
    const unbound = await cli(['call', `${tlsOp.issuer}/me`, '--insecure', '--token', tokens.access_token], env);
    expect(unbound.code).toBe(1);
    expect(unbound.err).toMatch(/HTTP 401/);
  });

  it('a certificate with another subject is refused (invalid_client)', async () => {
    const other = makeCertificates();
    try {
      const r = await cli([
        'login',
        '--issuer',
        tlsOp.issuer,
        '--client-id',
        'mtls-cli',
        '--auth-method',
        'tls_client_auth',
        '--scope',
        'openid',
        '--tls-cert',
        other.server.certFile,
        '--tls-key',
        other.server.keyFile,
        '--insecure',
        '--no-cache',
        ...headless,
      ]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/invalid_client/);
    } finally {
      other.remove();
    }
  });
});
