import { createHash, type KeyObject } from 'node:crypto';
import { SignJWT, exportJWK, type JWK } from 'jose';
import { keyPairSync } from '../../helpers/keys.js';

/** What the weak server's key set and ID tokens get wrong, one switch each. */
export interface KeyWeaknesses {
  /** The JWKS publishes the private key (d, p, q, ...). */
  jwksPrivate?: boolean;
  /** The JWKS also holds a 1024-bit RSA key. */
  jwksShortRsa?: boolean;
  /** The JWKS keys carry no kid. */
  jwksNoKid?: boolean;
  /** ID tokens are unsigned (alg none). */
  idTokenAlgNone?: boolean;
  /** ID tokens carry an at_hash of another access token. */
  idTokenBadAtHash?: boolean;
}

export interface WeakKeys {
  jwks(): Promise<{ keys: JWK[] }>;
  /** An RS256 ID token, or HS256 with `macSecret` (the client secret, OpenID Connect Core section 10.1). */
  idToken(claims: Record<string, unknown>, accessToken: string, macSecret?: string): Promise<string>;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The weak server's RS256 signing key (2048 bits), its JWKS and ID tokens, correct unless a switch says otherwise. */
export function createWeakKeys(weak: KeyWeaknesses): WeakKeys {
  const { privateKey, publicKey } = keyPairSync('rsa', { modulusLength: 2048 });
  const short = weak.jwksShortRsa ? keyPairSync('rsa', { modulusLength: 1024 }).publicKey : undefined;
  const kid = 'weak-1';
  const jwk = async (key: KeyObject, id: string): Promise<JWK> => ({ ...(await exportJWK(key)), ...(weak.jwksNoKid ? {} : { kid: id }), use: 'sig', alg: 'RS256' });
  return {
    async jwks() {
      const keys = [await jwk(weak.jwksPrivate ? privateKey : publicKey, kid)];
      if (short) keys.push(await jwk(short, 'weak-short'));
      return { keys };
    },
    async idToken(claims, accessToken, macSecret) {
      const atHash = createHash('sha256')
        .update(weak.idTokenBadAtHash ? `${accessToken}-other` : accessToken)
        .digest()
        .subarray(0, 16)
        .toString('base64url');
      const payload = { ...claims, at_hash: atHash };
      if (weak.idTokenAlgNone) return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`;
      if (macSecret !== undefined) return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(macSecret));
      return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(weak.jwksNoKid ? {} : { kid }) }).sign(privateKey);
    },
  };
}
