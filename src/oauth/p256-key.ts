import { createECDH, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

/** A P-256 key pair (ES256), with its public JWK. */
export interface P256KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** kty, crv, x and y (RFC 7518 section 6.2.1). */
  publicJwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
}

/**
 * A fresh P-256 key pair: DPoP proofs, the mock's ES256 signing key, the audit's forged `jwk` header.
 * Made by ECDH's key generation and imported as a JWK, never by generateKeyPairSync: on Node 20 the
 * garbage collector may destroy that call's key-generation job while the key is being exported as a
 * JWK, and the job's destructor then waits on the lock the export holds, forever (a deadlock seen
 * in about one run in 300 of `oauthctl url --dpop`; Node 24 does not do it). The asynchronous
 * generateKeyPair is not affected. ESLint refuses generateKeyPairSync in src/ and test/.
 */
export function generateP256KeyPair(): P256KeyPair {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  // SEC 1 section 2.3.3: the uncompressed point, 0x04 || x || y, each coordinate 32 octets.
  const point = ecdh.getPublicKey();
  const publicJwk = { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') } as const;
  // RFC 7518 section 6.2.2.1: d is the full 32 octets, leading zeros included.
  const d = Buffer.concat([Buffer.alloc(32), ecdh.getPrivateKey()])
    .subarray(-32)
    .toString('base64url');
  const privateKey = createPrivateKey({ key: { ...publicJwk, d } as JsonWebKey, format: 'jwk' });
  return { privateKey, publicKey: createPublicKey(privateKey), publicJwk };
}
