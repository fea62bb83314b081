import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/program/main.js';
import { decodeJwtUnverified } from '../../../src/oauth/jwt.js';
import { memoryIO } from '../../agent/helpers/io.js';
import { json, makeCertificates, startLoopbackServer, type LoopbackServer, type TestCertificates } from '../helpers/secured-loopback.js';
import { homeEnv } from '../../helpers/cli.js';
import { keyPairSync } from '../../helpers/keys.js';

let server: LoopbackServer | undefined;
let home: string;
let certs: TestCertificates;
let keyFile: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-secured-client-'));
  certs = makeCertificates();
  keyFile = join(home, 'client.pem');
  writeFileSync(keyFile, keyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  certs.remove();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const env = () => homeEnv(home);
async function cli(...args: string[]) {
  const io = memoryIO(env());
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}
const headless = ['--headless', '--username', 'u', '--password', 'p', '--timeout', '10', '--json'];
const tokens = { access_token: 'at-1', token_type: 'Bearer', expires_in: 300 };

describe('mutual TLS (RFC 8705) against an HTTPS loopback server that records the client certificate', () => {
  it('tls_client_auth: the certificate is presented at the token endpoint (client_id in the body, no secret); `call` presents it again', async () => {
    server = await startLoopbackServer((req, res) => {
      if (req.path === '/token') return json(res, 200, tokens);
      if (req.path === '/api') return req.clientCertificate === certs.clientFingerprint ? json(res, 200, { photos: 1 }) : json(res, 401, { error: 'invalid_token' });
      json(res, 404, {});
    }, certs.server);
    const mtls = ['--tls-cert', certs.clientCertFile, '--tls-key', certs.clientKeyFile, '--insecure'];
    const login = await cli('login', '--auth-url', server.url, '--client-id', 'mtls-client', '--auth-method', 'tls_client_auth', '--pkce', ...mtls, ...headless);
    expect(login.code, login.err).toBe(0);
    const token = server.seen.find((r) => r.path === '/token')!;
    expect(token.clientCertificate).toBe(certs.clientFingerprint);
    expect(token.form.get('client_id')).toBe('mtls-client');
    expect(token.form.has('client_secret')).toBe(false);
    expect(token.headers.authorization).toBeUndefined();

    const called = await cli('call', `${server.url}/api`, '--insecure');
    expect(called.code, called.err).toBe(0);
    expect(JSON.parse(called.out)).toEqual({ photos: 1 });
    expect(server.seen.filter((r) => r.path === '/api').map((r) => r.clientCertificate)).toEqual([certs.clientFingerprint]);
  });

  it('uses the mtls_endpoint_aliases of the metadata when a certificate is in use (RFC 8705 section 5)', async () => {
    server = await startLoopbackServer((req, res, base) => {
      if (req.path === '/.well-known/oauth-authorization-server') {
        return json(res, 200, { issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`, mtls_endpoint_aliases: { token_endpoint: `${base}/mtls/token` } });
      }
      if (req.path === '/mtls/token') return json(res, 200, tokens);
      json(res, 400, { error: 'invalid_client', error_description: 'use the mTLS alias' });
    }, certs.server);
    const r = await cli(
      'login',
      '--issuer',
      server.url,
      '--client-id',
      'c',
      '--auth-method',
      'self_signed_tls_client_auth',
      '--pkce',
      '--tls-cert',
      certs.clientCertFile,
      '--tls-key',
      certs.clientKeyFile,
      '--insecure',
      '--no-cache',
      ...headless,
    );
    expect(r.code, r.err).toBe(0);
    expect(server.seen.map((s) => s.path)).toContain('/mtls/token');
    expect(server.seen.find((s) => s.path === '/mtls/token')?.clientCertificate).toBe(certs.clientFingerprint);
  });
});

describe('DPoP and client assertions against hostile or recording servers', () => {
  it('a server that asks for a nonce again and again gets exactly one retry, then the error (exit 1)', async () => {
    let n = 0;
    server = await startLoopbackServer((_req, res) => {
      n += 1;
      json(res, 400, { error: 'use_dpop_nonce', error_description: 'nonce please' }, { 'dpop-nonce': `nonce-${n}` });
    });
    const r = await cli('login', '--auth-url', server.url, '--client-id', 'c', '--pkce', '--dpop', '--no-cache', ...headless);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/oauthctl: error: use_dpop_nonce/);
    const proofs = server.seen.filter((s) => s.path === '/token').map((s) => decodeJwtUnverified(String(s.headers.dpop))!.claims);
    expect(proofs).toHaveLength(2);
    expect(proofs[0]!.nonce).toBeUndefined();
    expect(proofs[1]!.nonce).toBe('nonce-1');
    expect(proofs[0]!.jti).not.toBe(proofs[1]!.jti);
  });

  it('each request gets a fresh client assertion (the nonce retry too), redacted in traces', async () => {
    let n = 0;
    server = await startLoopbackServer((_req, res) => {
      n += 1;
      if (n === 1) return json(res, 400, { error: 'use_dpop_nonce' }, { 'dpop-nonce': 'n1' });
      json(res, 200, { ...tokens, token_type: 'DPoP' });
    });
    const r = await cli(
      'login',
      '--auth-url',
      server.url,
      '--client-id',
      'c',
      '--pkce',
      '--dpop',
      '--auth-method',
      'private_key_jwt',
      '--signing-key',
      keyFile,
      '--no-cache',
      '--verbose',
      ...headless,
    );
    expect(r.code, r.err).toBe(0);
    const assertions = server.seen.filter((s) => s.path === '/token').map((s) => s.form);
    expect(assertions.map((f) => f.get('client_assertion_type'))).toEqual(['urn:ietf:params:oauth:client-assertion-type:jwt-bearer', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer']);
    const claims = assertions.map((f) => decodeJwtUnverified(f.get('client_assertion')!)!.claims);
    expect(claims[0]!.jti).not.toBe(claims[1]!.jti);
    expect(claims[0]).toMatchObject({ iss: 'c', sub: 'c', aud: `${server.url}/token` });
    // The trace shows neither the assertion nor the proof's signature.
    expect(r.err).toMatch(/client_assertion=\[redacted \d+ chars\]/);
    expect(r.err).toMatch(/> dpop: [\w-]+\.[\w-]+\.\[signature redacted\]/);
    expect(r.err).not.toContain(assertions[0]!.get('client_assertion')!);
  });

  it('--dpop, but the server answers token_type Bearer: a warning that the token is not bound', async () => {
    server = await startLoopbackServer((_req, res) => json(res, 200, tokens));
    const r = await cli('login', '--auth-url', server.url, '--client-id', 'c', '--pkce', '--dpop', '--no-cache', ...headless);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/warning: DPoP was asked for, but the token response says token_type "Bearer": the access token is not bound to the key/);
  });

  it('repeated --resource: each one on the authorization request and on the token request', async () => {
    server = await startLoopbackServer((_req, res) => json(res, 200, tokens));
    const r = await cli('login', '--auth-url', server.url, '--client-id', 'c', '--pkce', '--resource', 'https://a.example/', '--resource', 'https://b.example/x', '--no-cache', ...headless);
    expect(r.code, r.err).toBe(0);
    expect(server.seen.find((s) => s.path === '/authorize')!.form.getAll('resource')).toEqual(['https://a.example/', 'https://b.example/x']);
    expect(server.seen.find((s) => s.path === '/token')!.form.getAll('resource')).toEqual(['https://a.example/', 'https://b.example/x']);
  });
});

describe('PAR against hostile servers', () => {
  it('a PAR answer without request_uri fails the flow in one line (exit 1); no browser step', async () => {
    server = await startLoopbackServer((_req, res) => json(res, 201, { expires_in: 60 }));
    const r = await cli('login', '--auth-url', server.url, '--par-endpoint', `${server.url}/par`, '--client-id', 'c', '--pkce', '--par', '--no-cache', ...headless);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/oauthctl: error: the PAR response has no request_uri \(RFC 9126 section 2.2\)/);
    expect(server.seen.map((s) => s.path)).toEqual(['/par']);
  });

  it("a PAR error is reported with the server's error code", async () => {
    server = await startLoopbackServer((_req, res) => json(res, 400, { error: 'invalid_request', error_description: 'no \u001b[31mway' }));
    const r = await cli('login', '--auth-url', server.url, '--par-endpoint', `${server.url}/par`, '--client-id', 'c', '--pkce', '--par', '--no-cache', ...headless);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/oauthctl: error: the PAR endpoint answered HTTP 400 invalid_request: no \\x1b\[31mway/);
    expect(r.err).not.toContain('\u001b');
  });
});

describe('bad input: one line, exit 2', () => {
  const base = ['login', '--auth-url', 'http://127.0.0.1:9', '--client-id', 'c', '--no-cache', ...headless];
  const cases: [string, string[], RegExp][] = [
    ['private_key_jwt without a key', ['--auth-method', 'private_key_jwt'], /--auth-method private_key_jwt needs --signing-key FILE/],
    ['an unreadable key', ['--auth-method', 'private_key_jwt', '--signing-key', '/nonexistent/key.pem'], /cannot read --signing-key "\/nonexistent\/key.pem": ENOENT/],
    ['a public-only key', ['--auth-method', 'private_key_jwt', '--signing-key', 'PUBLIC'], /--signing-key ".*" holds only a public key/],
    ['--tls-cert without --tls-key', ['--tls-cert', '/tmp/c.pem'], /--tls-cert needs --tls-key/],
    ['tls_client_auth without a certificate', ['--auth-method', 'tls_client_auth'], /--auth-method tls_client_auth needs --tls-cert FILE and --tls-key FILE/],
    ['--jar without a key', ['--jar'], /--jar needs --signing-key FILE/],
    ['client_secret_jwt without a secret', ['--auth-method', 'client_secret_jwt'], /--auth-method client_secret_jwt needs a client secret/],
    ['a resource with a fragment', ['--resource', 'https://api.example/#x'], /--resource must not contain a fragment/],
    ['a DPoP key that is not P-256', ['--dpop-key', 'RSA'], /--dpop-key ".*" is not a P-256 key/],
  ];
  for (const [name, args, message] of cases) {
    it(name, async () => {
      const resolved = args.map((a) => (a === 'PUBLIC' ? writePublicKey() : a === 'RSA' ? writeRsaKey() : a));
      const r = await cli(...base, ...resolved);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(
        r.err
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('oauthctl: error:')),
      ).toHaveLength(1);
      expect(r.err).not.toMatch(/\n\s+at /);
    });
  }

  it('--par with no PAR endpoint known (no metadata, no --par-endpoint)', async () => {
    server = await startLoopbackServer((_req, res) => json(res, 404, {}));
    const r = await cli('login', '--auth-url', server.url, '--client-id', 'c', '--pkce', '--par', '--no-cache', ...headless);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/oauthctl: error: --par: no pushed authorization request endpoint known/);
  });
});

function writePublicKey(): string {
  const file = join(home, 'public.pem');
  writeFileSync(file, keyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'pem', type: 'spki' }) as string);
  return file;
}

function writeRsaKey(): string {
  const file = join(home, 'rsa.pem');
  writeFileSync(file, keyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
  return file;
}

describe('PAR on its own when the metadata requires it (RFC 9126 section 5)', () => {
  it('login --issuer pushes without --par when require_pushed_authorization_requests is true', async () => {
    const { startSecuredWeakServer } = await import('../../audit/helpers/secured-weak-server.js');
    const weak = await startSecuredWeakServer({ requirePar: true });
    try {
      const r = await cli('login', '--issuer', weak.url, '--client-id', 'pub', '--pkce', '--scope', 'openid', '--no-cache', ...headless);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(/==> Pushed authorization request/);
    } finally {
      await weak.close();
    }
  });
});
