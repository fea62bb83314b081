import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
// fs.promises, not node:fs/promises: loaded when a key file is read, not by every command that loads this module.
import { promises as fs } from 'node:fs';
import type { JWK } from 'jose';
import { UsageError } from '../../errors.js';
import { dpopJkt, type DpopKey } from '../../oauth/dpop.js';
import type { ClientSigningKey } from '../../oauth/token-request.js';

/**
 * Reads a private key from a PEM file (PKCS#8, SEC1 or PKCS#1) or a JWK file. A file that cannot be
 * read, holds no key, or holds only a public key is a UsageError naming the flag.
 */
export async function readPrivateKey(file: string, flag: string): Promise<{ key: KeyObject; jwk?: JWK }> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${flag} ${JSON.stringify(file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'give the path of a private key file (PEM or JWK)');
  }
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let jwk: JWK;
    try {
      jwk = JSON.parse(trimmed) as JWK;
    } catch {
      throw new UsageError(`${flag} ${JSON.stringify(file)} is neither PEM nor valid JSON`, 'give a PEM private key or a private JWK');
    }
    if (jwk.d === undefined) throw publicOnly(flag, file);
    try {
      return { key: createPrivateKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' }), jwk };
    } catch (err) {
      throw new UsageError(`${flag} ${JSON.stringify(file)} is not a usable private JWK: ${(err as Error).message}`);
    }
  }
  if (/-----BEGIN (RSA |EC )?PUBLIC KEY-----|-----BEGIN CERTIFICATE-----/.test(trimmed) && !/PRIVATE KEY-----/.test(trimmed)) throw publicOnly(flag, file);
  try {
    return { key: createPrivateKey(trimmed) };
  } catch {
    throw new UsageError(`${flag} ${JSON.stringify(file)} holds no private key`, 'give a PEM private key (BEGIN PRIVATE KEY) or a private JWK');
  }
}

function publicOnly(flag: string, file: string): UsageError {
  return new UsageError(`${flag} ${JSON.stringify(file)} holds only a public key`, 'the client signs with its private key: give that file');
}

/** The JWS algorithm for a key: the JWK's own `alg`, else RS256, ES256/384/512 by curve, or EdDSA. */
export function algorithmFor(key: KeyObject, jwkAlg?: string): string {
  if (jwkAlg !== undefined) return jwkAlg;
  const type = key.asymmetricKeyType;
  if (type === 'rsa' || type === 'rsa-pss') return type === 'rsa' ? 'RS256' : 'PS256';
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new UsageError(`the key's curve ${curve ?? '?'} has no JWS algorithm`, 'use P-256, P-384, P-521, RSA or Ed25519');
  }
  if (type === 'ed25519') return 'EdDSA';
  throw new UsageError(`a ${type ?? 'unknown'} key cannot sign JWTs`, 'use an RSA, EC or Ed25519 key');
}

/** --signing-key FILE (and --signing-key-id): the client's key for private_key_jwt and request objects. */
export async function loadSigningKey(file: string, keyId?: string): Promise<ClientSigningKey> {
  const { key, jwk } = await readPrivateKey(file, '--signing-key');
  const kid = keyId ?? jwk?.kid;
  return { key, alg: algorithmFor(key, jwk?.alg), ...(kid !== undefined && { kid }), file, ...(jwk?.alg !== undefined && { algStated: true }) };
}

/** A fresh P-256 key pair for one login's DPoP proofs (RFC 9449). */
export async function generateDpopKey(): Promise<DpopKey> {
  const { generateP256KeyPair } = await import('../../oauth/p256-key.js');
  return dpopKeyFrom(generateP256KeyPair().privateKey);
}

/** --dpop-key FILE: a P-256 private key (PEM or JWK). */
export async function loadDpopKey(file: string): Promise<DpopKey> {
  const { key } = await readPrivateKey(file, '--dpop-key');
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new UsageError(`--dpop-key ${JSON.stringify(file)} is not a P-256 key`, 'DPoP proofs here are ES256: e.g. openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256');
  }
  return dpopKeyFrom(key);
}

/** The DPoP key kept with cached tokens: its private JWK (the cache file is 0600). */
export function exportDpopKey(key: DpopKey): JWK {
  return key.privateKey.export({ format: 'jwk' }) as JWK;
}

/** A DPoP key back from its cached private JWK. */
export async function importDpopKey(jwk: JWK): Promise<DpopKey> {
  return dpopKeyFrom(createPrivateKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' }));
}

async function dpopKeyFrom(privateKey: KeyObject): Promise<DpopKey> {
  const full = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  const publicJwk: JWK = { kty: full.kty!, crv: full.crv!, x: full.x!, y: full.y! };
  return { privateKey, publicJwk, alg: 'ES256', jkt: await dpopJkt(publicJwk) };
}

/** --tls-cert and --tls-key (RFC 8705): both PEM files read, or neither given. */
export async function readClientCertificate(certFile: string | undefined, keyFile: string | undefined): Promise<{ cert: string; key: string } | undefined> {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) {
    throw new UsageError(certFile === undefined ? '--tls-key needs --tls-cert' : '--tls-cert needs --tls-key', 'give both the client certificate and its private key');
  }
  const read = async (file: string, flag: string, marker: RegExp) => {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${flag} ${JSON.stringify(file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (!marker.test(text)) throw new UsageError(`${flag} ${JSON.stringify(file)} is not a PEM ${flag === '--tls-cert' ? 'certificate' : 'private key'}`);
    return text;
  };
  const cert = await read(certFile, '--tls-cert', /-----BEGIN CERTIFICATE-----/);
  const key = await read(keyFile, '--tls-key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/);
  try {
    createPrivateKey(key);
  } catch {
    throw new UsageError(`--tls-key ${JSON.stringify(keyFile)} holds no usable private key`);
  }
  return { cert, key };
}
