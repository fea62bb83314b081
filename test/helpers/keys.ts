// eslint-disable-next-line no-restricted-imports -- the one use, made safe below
import { createPrivateKey, createPublicKey, generateKeyPairSync as generateWithJob, type KeyObject } from 'node:crypto';

/**
 * generateKeyPairSync for tests, safe on Node 20: the pair comes back as PEM and is imported afresh,
 * so that no key shares its lock with the generation job, which the garbage collector may destroy
 * while a JWK export of that key holds the lock: a deadlock (src/oauth/p256-key.ts).
 */
export function keyPairSync(type: 'ec' | 'rsa' | 'ed25519', options: { namedCurve?: string; modulusLength?: number } = {}): { privateKey: KeyObject; publicKey: KeyObject } {
  const pem = { publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } } as const;
  const { privateKey, publicKey } = (generateWithJob as (type: string, options: object) => { privateKey: string; publicKey: string })(type, { ...options, ...pem });
  return { privateKey: createPrivateKey(privateKey), publicKey: createPublicKey(publicKey) };
}
