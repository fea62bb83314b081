import { hash } from 'node:crypto';

/**
 * at_hash and c_hash of an ID token (OpenID Connect Core 3.1.3.6 and 3.3.2.11): the base64url of the
 * left half of the hash of the access token or code, with the hash function of the ID token's JWS
 * alg (SHA-256 for RS256, ES256 and PS256; SHA-384 and SHA-512 for the 384 and 512 variants; SHA-512
 * for EdDSA with Ed25519, as OpenID Connect's errata set says). Undefined for an alg with no known hash
 * (`none`, an unknown one). The mock issues it and the audit checks it.
 */
export function oidcTokenHash(value: string, alg: string): string | undefined {
  const name = hashOfAlg(alg);
  if (name === undefined) return undefined;
  const digest = hash(name, value, 'buffer');
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

function hashOfAlg(alg: string): string | undefined {
  if (alg === 'EdDSA' || alg === 'Ed25519') return 'sha512';
  const bits = /^(?:RS|ES|PS|HS)(256|384|512)$/.exec(alg)?.[1];
  return bits === undefined ? undefined : `sha${bits}`;
}
