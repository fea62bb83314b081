import { execFileSync, spawn } from 'node:child_process';
import { createHash, createPublicKey, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeClientCa, makeSelfSigned } from '../helpers/certificates.js';
import { createInterface } from 'node:readline';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServeMock } from '../../src/cli/mock/serve-mock.js';
import { UsageError } from '../../src/errors.js';
import type { MockServer } from '../../src/mock/index.js';
import { createPkcePair } from '../../src/oauth/pkce.js';
import { memoryIO } from '../helpers/io.js';
import { pkceRequest, REDIRECT_URI, startMock } from './helpers.js';
import { modernClient } from './modern-helpers.js';

// Client certificates made with openssl for this run: a CA of the test's own and a certificate it
// signed (tls_client_auth), and a self-signed one (self_signed_tls_client_auth).
let dir: string;
const pem = (name: string) => readFileSync(join(dir, name), 'utf8');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-mtls-test-'));
  makeClientCa('photo-mtls', dir);
  makeSelfSigned(dir, 'self', { subject: '/CN=photo-self', subjectAltName: null });
  makeSelfSigned(dir, 'other', { subject: '/O=Example/CN=photo-mtls', subjectAltName: null });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Identity {
  cert?: string;
  key?: string;
}
const CLIENT = (): Identity => ({ cert: pem('client.pem'), key: pem('client.key') });
const SELF = (): Identity => ({ cert: pem('self.pem'), key: pem('self.key') });
const OTHER = (): Identity => ({ cert: pem('other.pem'), key: pem('other.key') });

/** One HTTPS request with node:https, trusting the mock's CA, presenting `identity`'s certificate. */
function call(server: MockServer, method: string, url: string, identity: Identity, form?: Record<string, string>, headers: Record<string, string> = {}) {
  const body = form ? new URLSearchParams(form).toString() : undefined;
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request(url, { method, ca: server.ca, ...identity, agent: false, headers: { ...headers, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function tlsMock(): Promise<MockServer> {
  const selfJwk = createPublicKey(pem('self.key')).export({ format: 'jwk' });
  return startMock(
    {
      tls_client_auth_ca: join(dir, 'ca.pem'),
      clients: [
        modernClient('photo-mtls', { token_endpoint_auth_method: 'tls_client_auth', tls_client_auth_subject_dn: 'CN=photo-mtls,O=Example' }),
        modernClient('photo-self', { token_endpoint_auth_method: 'self_signed_tls_client_auth', jwks: { keys: [selfJwk as never] } }),
      ],
    },
    { autoLogin: 'alice', tls: true },
  );
}

/** A code for the client over HTTPS, and the token request with `identity`. */
async function tokenRequest(server: MockServer, clientId: string, identity: Identity) {
  const pkce = createPkcePair();
  const url = new URL(`${server.authUrl}/authorize`);
  for (const [k, v] of Object.entries(pkceRequest(pkce, { client_id: clientId }))) url.searchParams.set(k, v!);
  const redirect = await call(server, 'GET', url.href, {});
  const code = new URL(String(redirect.headers.location)).searchParams.get('code')!;
  const r = await call(server, 'POST', `${server.authUrl}/token`, identity, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: pkce.codeVerifier,
  });
  return { status: r.status, body: JSON.parse(r.body) as Record<string, string> };
}

const thumbprint = (certPem: string) => createHash('sha256').update(new X509Certificate(certPem).raw).digest('base64url');

describe('the mock over TLS (tls: true)', () => {
  it('is https, with a certificate for 127.0.0.1 signed by the CA it made; the metadata lists the mTLS features', async () => {
    const server = await tlsMock();
    expect(server.issuer).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const r = await call(server, 'GET', `${server.issuer}/.well-known/oauth-authorization-server`, {});
    const meta = JSON.parse(r.body) as Record<string, unknown>;
    expect(meta.issuer).toBe(server.issuer);
    expect(meta.tls_client_certificate_bound_access_tokens).toBe(true);
    expect(meta.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['tls_client_auth', 'self_signed_tls_client_auth', 'private_key_jwt']));
  });
});

describe('tls_client_auth (RFC 8705 section 2.1)', () => {
  it('authenticates by a certificate from the configured CA with the subject DN, and binds the token to it (cnf.x5t#S256)', async () => {
    const server = await tlsMock();
    const r = await tokenRequest(server, 'photo-mtls', CLIENT());
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(decodeJwt(r.body.access_token!).cnf).toEqual({ 'x5t#S256': thumbprint(pem('client.pem')) });
  });

  it.each<[string, () => Identity, RegExp]>([
    ['no certificate', () => ({}), /no client certificate/],
    ['a self-signed certificate with the right subject', OTHER, /not signed by a CA/],
  ])('refuses %s: 401 invalid_client', async (_name, identity, description) => {
    const server = await tlsMock();
    const r = await tokenRequest(server, 'photo-mtls', identity());
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_client');
    expect(r.body.error_description).toMatch(description);
  });

  it('refuses a certificate of the CA with another subject', async () => {
    const selfJwk = createPublicKey(pem('self.key')).export({ format: 'jwk' });
    const server = await startMock(
      {
        tls_client_auth_ca: pem('ca.pem'),
        clients: [
          modernClient('photo-mtls', { token_endpoint_auth_method: 'tls_client_auth', tls_client_auth_subject_dn: 'CN=someone-else,O=Example' }),
          modernClient('photo-self', { token_endpoint_auth_method: 'self_signed_tls_client_auth', jwks: { keys: [selfJwk as never] } }),
        ],
      },
      { autoLogin: 'alice', tls: true },
    );
    const r = await tokenRequest(server, 'photo-mtls', CLIENT());
    expect(r.status).toBe(401);
    expect(r.body.error_description).toMatch(/subject/);
  });
});

describe('self_signed_tls_client_auth (RFC 8705 section 2.2)', () => {
  it("authenticates by a certificate whose key is in the client's jwks; refuses another", async () => {
    const server = await tlsMock();
    expect((await tokenRequest(server, 'photo-self', SELF())).status).toBe(200);
    const other = await tokenRequest(server, 'photo-self', OTHER());
    expect(other.status).toBe(401);
    expect(other.body.error_description).toMatch(/jwks/);
  });
});

describe('certificate-bound access tokens at the API (RFC 8705 section 3)', () => {
  it('need the same certificate on the connection', async () => {
    const server = await tlsMock();
    const { body } = await tokenRequest(server, 'photo-self', SELF());
    const auth = { Authorization: `Bearer ${body.access_token}` };
    expect((await call(server, 'GET', `${server.baseUrl}/photos`, SELF(), undefined, auth)).status).toBe(200);
    for (const identity of [{}, OTHER()]) {
      const r = await call(server, 'GET', `${server.baseUrl}/photos`, identity, undefined, auth);
      expect(r.status).toBe(401);
      expect(String(r.headers['www-authenticate'])).toMatch(/invalid_token/);
    }
  });
});

describe('oauthctl serve-mock --tls', () => {
  it('--json adds ca_file, which NODE_EXTRA_CA_CERTS can trust; the file is removed at exit', async () => {
    const child = spawn(process.execPath, ['bin/oauthctl.js', 'serve-mock', '--tls', '--port', '0', '--json', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const line = JSON.parse(first) as Record<string, string>;
      expect(Object.keys(line)).toEqual(['issuer', 'auth_url', 'base_url', 'ca_file']);
      expect(line.issuer).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(existsSync(line.ca_file!)).toBe(true);
      const script = `fetch(${JSON.stringify(`${line.issuer}/.well-known/openid-configuration`)}).then(r => r.json()).then(m => console.log(m.issuer))`;
      const trusted = execFileSync(process.execPath, ['-e', script], { env: { ...process.env, NODE_EXTRA_CA_CERTS: line.ca_file }, encoding: 'utf8' });
      expect(trusted.trim()).toBe(line.issuer);
      const closed = once(child, 'close');
      child.kill('SIGTERM');
      expect(((await closed) as [number])[0]).toBe(0);
      expect(existsSync(line.ca_file!)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('--tls-cert and --tls-key use your own certificate; one without the other is a usage error', async () => {
    await expect(runServeMock({ tlsCert: join(dir, 'self.pem') }, memoryIO(), AbortSignal.abort())).rejects.toThrow(UsageError);
    await expect(runServeMock({ tlsCert: join(dir, 'nope.pem'), tlsKey: join(dir, 'self.key') }, memoryIO(), AbortSignal.abort())).rejects.toThrow(/cannot read --tls-cert/);
    const io = memoryIO();
    const stop = new AbortController();
    const done = runServeMock({ port: 0, tlsCert: join(dir, 'self.pem'), tlsKey: join(dir, 'self.key'), json: true, quiet: true }, io, stop.signal);
    while (!io.out().includes('\n')) await new Promise((r) => setTimeout(r, 10));
    const line = JSON.parse(io.out()) as Record<string, string>;
    expect(line.issuer).toMatch(/^https:/);
    expect(line.ca_file).toBeUndefined();
    stop.abort();
    expect(await done).toBe(0);
  });
});

describe('every grant binds to the client certificate (RFC 8705 section 3)', () => {
  it('client credentials for a self_signed_tls_client_auth client: cnf x5t#S256, and the API wants the certificate', async () => {
    const selfJwk = createPublicKey(pem('self.key')).export({ format: 'jwk' });
    const server = await startMock(
      {
        clients: [
          modernClient('photo-self-cc', { token_endpoint_auth_method: 'self_signed_tls_client_auth', jwks: { keys: [selfJwk as never] }, grant_types: ['client_credentials'], scopes: ['photo'] }),
        ],
      },
      { tls: true },
    );
    const r = await call(server, 'POST', `${server.authUrl}/token`, SELF(), { grant_type: 'client_credentials', client_id: 'photo-self-cc', scope: 'photo' });
    expect(r.status).toBe(200);
    const body = JSON.parse(r.body) as Record<string, string>;
    expect(body.token_type).toBe('Bearer');
    expect(decodeJwt(body.access_token!).cnf).toEqual({ 'x5t#S256': thumbprint(pem('self.pem')) });
    const auth = { Authorization: `Bearer ${body.access_token}` };
    expect((await call(server, 'GET', `${server.baseUrl}/photos`, {}, undefined, auth)).status).toBe(401);
    expect((await call(server, 'GET', `${server.baseUrl}/photos`, SELF(), undefined, auth)).status).toBe(200);
    await server.close();
  });
});
