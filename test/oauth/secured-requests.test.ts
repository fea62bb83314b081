import { createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compactVerify, decodeJwt, decodeProtectedHeader } from 'jose';
import { exportDpopKey, generateDpopKey, importDpopKey, loadDpopKey, loadSigningKey } from '../../src/client/flows/keys.js';
import { UsageError } from '../../src/errors.js';
import { clientAssertionClaims, signClientAssertion } from '../../src/oauth/client-assertion.js';
import { accessTokenHash, createDpopProof, dpopHtu } from '../../src/oauth/dpop.js';
import { requestObjectClaims } from '../../src/oauth/request-object.js';
import { buildAuthenticatedRequest } from '../../src/oauth/token-request.js';
import { redactHeaderValue } from '../../src/output/redact.js';
import { keyPairSync } from '../helpers/keys.js';

const dir = mkdtempSync(join(tmpdir(), 'oauthctl-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

describe('DPoP proofs (RFC 9449 section 4.2)', () => {
  it('htu drops query and fragment; ath is base64url(SHA-256(token)) (the RFC 9449 section 7.1 example)', () => {
    expect(dpopHtu('https://rs.example/p?x=1#f')).toBe('https://rs.example/p');
    expect(accessTokenHash('Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU')).toBe('fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo');
  });

  it('a proof: typ dpop+jwt, ES256, the public JWK only, verifiable with it; a cached key gives the same thumbprint', async () => {
    const key = await generateDpopKey();
    const proof = await createDpopProof(key, { htm: 'post', htu: 'https://as.example/token?x', nonce: 'n', accessToken: 'at' });
    const header = decodeProtectedHeader(proof);
    expect(header).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256' } });
    expect(header.jwk).not.toHaveProperty('d');
    expect(decodeJwt(proof)).toMatchObject({ htm: 'POST', htu: 'https://as.example/token', nonce: 'n', ath: accessTokenHash('at') });
    await expect(compactVerify(proof, createPublicKey(key.privateKey))).resolves.toBeDefined();
    expect((await importDpopKey(exportDpopKey(key))).jkt).toBe(key.jkt);
  });
});

describe('keys', () => {
  it('the algorithm follows the key: RSA RS256, P-384 ES384, Ed25519 EdDSA, a JWK its own alg and kid', async () => {
    const pem = (type: 'rsa' | 'ed25519' | 'ec', opts: object) => keyPairSync(type as 'rsa', opts as { modulusLength: number }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    expect((await loadSigningKey(write('rsa.pem', pem('rsa', { modulusLength: 2048 })))).alg).toBe('RS256');
    expect((await loadSigningKey(write('p384.pem', pem('ec', { namedCurve: 'P-384' })))).alg).toBe('ES384');
    expect((await loadSigningKey(write('ed.pem', pem('ed25519', {})))).alg).toBe('EdDSA');
    const jwk = keyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    const loaded = await loadSigningKey(write('rsa.jwk', JSON.stringify({ ...jwk, alg: 'PS256', kid: 'k1' })));
    expect({ alg: loaded.alg, kid: loaded.kid }).toEqual({ alg: 'PS256', kid: 'k1' });
    expect((await loadSigningKey(write('rsa2.jwk', JSON.stringify({ ...jwk, kid: 'k1' })), 'override')).kid).toBe('override');
  });

  it('a public JWK, a certificate-less garbage file and an RSA DPoP key are UsageErrors', async () => {
    const { publicKey } = keyPairSync('ec', { namedCurve: 'P-256' });
    await expect(loadSigningKey(write('pub.jwk', JSON.stringify(publicKey.export({ format: 'jwk' }))))).rejects.toThrow(/holds only a public key/);
    await expect(loadSigningKey(write('junk.pem', 'hello'))).rejects.toBeInstanceOf(UsageError);
    await expect(loadSigningKey(write('junk.json', '{"kty":'))).rejects.toThrow(/neither PEM nor valid JSON/);
    await expect(loadDpopKey(write('rsa-dpop.pem', keyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string))).rejects.toThrow(/not a P-256 key/);
  });
});

describe('client authentication forms', () => {
  it('private_key_jwt: client_assertion_type, client_assertion and client_id; no Authorization header, no secret', () => {
    const req = buildAuthenticatedRequest(
      'https://as/token',
      { clientId: 'c', authMethod: 'private_key_jwt' },
      { grant_type: 'x', resource: ['https://a/', 'https://b/'] },
      { clientAssertion: 'h.p.s' },
    );
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body).toBe(
      'grant_type=x&resource=https%3A%2F%2Fa%2F&resource=https%3A%2F%2Fb%2F&client_id=c&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=h.p.s',
    );
  });

  it('tls_client_auth sends client_id only', () => {
    expect(buildAuthenticatedRequest('https://as/token', { clientId: 'c', authMethod: 'tls_client_auth' }, { grant_type: 'x' }).body).toBe('grant_type=x&client_id=c');
  });

  it('client_secret_jwt is HS256 over the secret, with the RFC 7523 claims', async () => {
    const claims = clientAssertionClaims('c', 'https://as', 1000, 'j');
    expect(claims).toEqual({ iss: 'c', sub: 'c', aud: 'https://as', jti: 'j', iat: 1000, exp: 1060 });
    const jwt = await signClientAssertion({ clientId: 'c', clientSecret: 's3cret', authMethod: 'client_secret_jwt' }, claims);
    await expect(compactVerify(jwt, new TextEncoder().encode('s3cret'))).resolves.toBeDefined();
  });

  it('a request object repeats a repeated parameter as an array and adds iss, aud, iat, nbf, exp, jti', () => {
    const claims = requestObjectClaims(new URLSearchParams('client_id=c&resource=a&resource=b&state=s'), 'c', 'https://as', 100);
    expect(claims).toMatchObject({ client_id: 'c', resource: ['a', 'b'], state: 's', iss: 'c', aud: 'https://as', iat: 100, nbf: 100, exp: 400 });
    expect(typeof claims.jti).toBe('string');
  });

  it('a DPoP header in a trace keeps header and claims, not the signature', () => {
    expect(redactHeaderValue('DPoP', 'aGVhZA.Y2xhaW1z.c2ln')).toBe('aGVhZA.Y2xhaW1z.[signature redacted]');
    expect(redactHeaderValue('DPoP', 'aGVhZA.Y2xhaW1z.c2ln', true)).toBe('aGVhZA.Y2xhaW1z.c2ln');
  });
});
