import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { MockClientInput } from '../../src/mock/index.js';
import { LOOPBACK_REDIRECT_URIS } from '../../src/mock/index.js';

/** An ES256 key pair with its public JWK and thumbprint (jose, as a client would make them). */
export interface TestKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  privateJwk: JWK;
  jkt: string;
}

export async function newKey(alg = 'ES256'): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, privateJwk: await exportJWK(privateKey), jkt: await calculateJwkThumbprint(publicJwk) };
}

export interface ProofOptions {
  htm?: string;
  htu: string;
  accessToken?: string;
  jti?: string;
  iat?: number;
  nonce?: string;
  typ?: string;
  alg?: string;
  /** The jwk header; default the key's public JWK. */
  jwk?: JWK;
  omit?: string[];
}

/** A DPoP proof (RFC 9449 section 4.2) signed with `key`; every part can be forged. */
export async function dpopProof(key: TestKey, o: ProofOptions): Promise<string> {
  const claims: Record<string, unknown> = { jti: o.jti ?? randomUUID(), htm: o.htm ?? 'POST', htu: o.htu, iat: o.iat ?? Math.floor(Date.now() / 1000) };
  if (o.accessToken !== undefined) claims.ath = createHash('sha256').update(o.accessToken).digest('base64url');
  if (o.nonce !== undefined) claims.nonce = o.nonce;
  for (const name of o.omit ?? []) delete claims[name];
  return new SignJWT(claims).setProtectedHeader({ alg: o.alg ?? 'ES256', typ: o.typ ?? 'dpop+jwt', jwk: o.jwk ?? key.publicJwk }).sign(key.privateKey);
}

/** A JWT signed with an arbitrary header and claims (client assertions, request objects); `alg: none` builds an unsigned one. */
export async function signedJwt(claims: Record<string, unknown>, key: CryptoKey | Uint8Array, header: Record<string, unknown> = { alg: 'ES256' }): Promise<string> {
  if (header.alg === 'none') {
    const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    return `${part(header)}.${part(claims)}.`;
  }
  return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key);
}

/** Claims of a client assertion (RFC 7523 section 3) for `clientId`, valid for a minute. */
export function assertionClaims(clientId: string, aud: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { iss: clientId, sub: clientId, aud, jti: randomUUID(), iat: now, exp: now + 60, ...overrides };
}

export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A client of the modern tests: loopback redirect URIs, no consent, and the given fields. */
export function modernClient(clientId: string, fields: Partial<MockClientInput> = {}): MockClientInput {
  return { client_id: clientId, redirect_uris: LOOPBACK_REDIRECT_URIS, consent: false, ...fields };
}
