import { decodeProtectedHeader, type JWTPayload } from 'jose';
import type { SigningAlg } from '../config/config.js';
import { createSigningKeys, type SigningKeys } from './keys.js';

/** At most this many retired keys stay published; past it the oldest goes even if its tokens live. */
const MAX_RETIRED = 10;

interface Retired {
  keys: SigningKeys;
  /** When the last token it signed expires (ms, the mock's clock); then it leaves the JWKS. */
  until: number;
}

/**
 * The signing keys with rotation (POST /_mock/keys/rotate): the current key signs; a retired key stops
 * signing but stays in the JWKS, and still verifies, until every token it signed has expired, so that
 * a relying party that caches the JWKS keeps working across a rotation (RFC 7517 section 5, `kid`).
 * It is itself a SigningKeys, so the endpoints do not know rotation exists.
 */
export class KeyRing implements SigningKeys {
  private retired: Retired[] = [];
  /** The latest `exp` (seconds) among the tokens the current key has signed. */
  private lastExp = 0;

  private constructor(
    private current: SigningKeys,
    private readonly now: () => number,
  ) {}

  static async create(alg: SigningAlg, now: () => number): Promise<KeyRing> {
    return new KeyRing(await createSigningKeys(alg), now);
  }

  get alg(): SigningAlg {
    return this.current.alg;
  }

  get kid(): string {
    return this.current.kid;
  }

  get jwks(): SigningKeys['jwks'] {
    return { keys: [...this.current.jwks.keys, ...this.live().flatMap((r) => r.keys.jwks.keys)] };
  }

  signAccessToken(claims: JWTPayload): Promise<string> {
    this.noteExp(claims);
    return this.current.signAccessToken(claims);
  }

  signIdToken(claims: JWTPayload): Promise<string> {
    this.noteExp(claims);
    return this.current.signIdToken(claims);
  }

  signLogoutToken(claims: JWTPayload): Promise<string> {
    this.noteExp(claims);
    return this.current.signLogoutToken(claims);
  }

  signIdJag(claims: JWTPayload): Promise<string> {
    this.noteExp(claims);
    return this.current.signIdJag(claims);
  }

  /** Verifies with the key the token's `kid` names, current or retired and still published. */
  verifyAccessToken(token: string, issuer: string, audience: string | string[], now: number): Promise<JWTPayload> {
    let kid: unknown;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return Promise.reject(new Error('the token has no readable JWS header'));
    }
    const keys = kid === undefined || kid === this.current.kid ? this.current : this.live().find((r) => r.keys.kid === kid)?.keys;
    if (!keys) return Promise.reject(new Error('no published key has this kid'));
    return keys.verifyAccessToken(token, issuer, audience, now);
  }

  /** A new key signs from now on; the old one is retired (it keeps verifying, and stays in the JWKS, while its tokens live). */
  async rotate(): Promise<string> {
    const next = await createSigningKeys(this.current.alg);
    const old = this.current;
    this.current = next;
    this.retired = this.live();
    this.retired.unshift({ keys: old, until: this.lastExp * 1000 });
    this.lastExp = 0;
    for (const dropped of this.retired.splice(MAX_RETIRED)) void dropped.keys.close();
    // A retired key signs no more: its signing thread can stop (verification needs none).
    await old.close();
    return next.kid;
  }

  async close(): Promise<void> {
    await Promise.all([this.current.close(), ...this.retired.map((r) => r.keys.close())]);
  }

  private live(): Retired[] {
    const now = this.now();
    return this.retired.filter((r) => r.until > now);
  }

  private noteExp(claims: JWTPayload): void {
    if (typeof claims.exp === 'number' && claims.exp > this.lastExp) this.lastExp = claims.exp;
  }
}
