import { generateKeyPair, type KeyObject } from 'node:crypto';
import { FAPI2_SIGNING_ALGS, isFapi2SigningAlg } from '../oauth/fapi2.js';
import type { ClientSigningKey } from '../oauth/token-request.js';
import { requireJwtClient } from './client-assertions.js';
import type { AuditContext } from './context.js';
import { ProbeSkip } from './probe-errors.js';

/**
 * What the FAPI 2.0 cryptography probes (Security Profile section 5.4.1: PS256, ES256 or EdDSA with
 * Ed25519, never RS256) share: the algorithm names as a report may show them, and the client's RSA key,
 * which an RS256 client assertion or request object must be signed with to test anything (a server
 * cannot verify RS256 with a client's EC key, so for such a client the question does not arise).
 */
export const ALLOWED = FAPI2_SIGNING_ALGS.join(', ');

/** An algorithm named by the server, as a report shows it: plain names as they are, anything else quoted. */
export function shownAlg(alg: unknown): string {
  return typeof alg === 'string' && /^[A-Za-z0-9+_-]{1,20}$/.test(alg) ? alg : (JSON.stringify(alg)?.slice(0, 40) ?? 'none');
}

/** Why an algorithm a server signed with is not allowed, or undefined when it is. */
export function disallowed(alg: unknown): string | undefined {
  return isFapi2SigningAlg(alg) ? undefined : shownAlg(alg);
}

/** The audited client's RSA key (private_key_jwt); the probe is not applicable otherwise, and says why. */
export function rsaClientKey(ctx: AuditContext): ClientSigningKey {
  requireJwtClient(ctx);
  const key = ctx.client.signingKey;
  if (key === undefined) throw new ProbeSkip('the client has no --signing-key');
  if (key.key.asymmetricKeyType !== 'rsa') {
    throw new ProbeSkip(
      `the client's key signs ${key.alg}, not RSA: an RS256 signature needs an RSA key registered for the client, so the server cannot be asked to take one; give an RSA --signing-key to test it`,
    );
  }
  return key;
}

/** A fresh RSA key of 2048 bits, made on libuv's pool: the proof key of an RS256 DPoP proof. */
export function freshRsaKey(): Promise<{ privateKey: KeyObject; publicKey: KeyObject }> {
  return new Promise((resolve, reject) => generateKeyPair('rsa', { modulusLength: 2048 }, (err, publicKey, privateKey) => (err ? reject(err) : resolve({ publicKey, privateKey }))));
}
