import type { CodeChallengeMethod } from '../../oauth/pkce.js';

/**
 * A map whose entries expire, bounded in size so that memory stays flat under load: past `max`
 * the oldest entry goes. Entries are kept in insertion order, which for one lifetime is also
 * expiry order, so a sweep stops at the first live entry.
 */
export class ExpiringMap<V extends { expiresAt: number }> {
  private readonly map = new Map<string, V>();
  constructor(
    private readonly max: number,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** The live entry, or undefined when absent or expired (an expired one is dropped). */
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    if (v.expiresAt <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return v;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    if (this.map.size >= this.max) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    this.map.set(key, value);
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  /** Drops expired entries; with mixed lifetimes a later pass catches what this one skipped. */
  sweep(): void {
    const now = this.now();
    let live = 0;
    for (const [key, v] of this.map) {
      if (v.expiresAt <= now) this.map.delete(key);
      else if (++live > 64) break;
    }
  }
}

/** What an authorization code is bound to (RFC 6749 section 4.1.3, RFC 7636 section 4.4). */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  username: string;
  scopes: string[];
  codeChallenge?: string;
  codeChallengeMethod?: CodeChallengeMethod;
  nonce?: string;
  authTime: number;
  expiresAt: number;
  /** RFC 8707 resource indicators and RFC 9449 section 10 dpop_jkt of the authorization request. */
  resources?: string[];
  dpopJkt?: string;
  /** Set on first use; a second use revokes what the first issued (RFC 6749 section 4.1.2). */
  redeemed?: { accessTokenJti: string; accessTokenExpiresAt: number; refreshFamily?: string };
}

export interface RefreshTokenRecord {
  clientId: string;
  username: string;
  scopes: string[];
  family: string;
  authTime: number;
  expiresAt: number;
  /** Rotated (already exchanged): a reuse revokes the whole family (RFC 9700 section 4.14.2). */
  rotated: boolean;
  /** The resources granted (RFC 8707 section 2.2), and the DPoP key a public client's token is bound to (RFC 9449 section 5). */
  resources?: string[];
  jkt?: string;
}

export interface FamilyRecord {
  revoked: boolean;
  /** Access tokens issued in this family: revoked with it. */
  accessTokens: Map<string, number>;
  expiresAt: number;
}

/** A browser session: the anonymous CSRF token first, the signed-in user after login. */
export interface SessionRecord {
  csrfToken: string;
  username?: string;
  authTime?: number;
  /** client_id -> granted scopes, so that consent is asked once per session. */
  consents: Map<string, Set<string>>;
  expiresAt: number;
}

/** A validated authorization request waiting for login or consent. */
export interface InteractionRecord {
  sessionId: string;
  request: AuthorizationRequest;
  expiresAt: number;
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  scopes: string[];
  codeChallenge?: string;
  codeChallengeMethod?: CodeChallengeMethod;
  nonce?: string;
  prompt: Set<string>;
  resources?: string[];
  dpopJkt?: string;
}

/** What an access token says (RFC 9068 section 2.2): the claims of a JWT one, or what an opaque one stands for. */
export type AccessTokenClaims = {
  iss: string;
  sub: string;
  aud: string | string[];
  client_id: string;
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  auth_time: number;
  /** RFC 9449 section 6.1 (jkt) and RFC 8705 section 3.1 (x5t#S256): the key or certificate the token is bound to. */
  cnf?: { jkt?: string; 'x5t#S256'?: string };
};

/** An opaque access token: its claims, kept a while past `exp` so that the API can say "expired". */
export interface OpaqueAccessTokenRecord {
  claims: AccessTokenClaims;
  expiresAt: number;
}

export interface RevokedRecord {
  expiresAt: number;
}

const LIMITS = { codes: 10_000, accessTokens: 20_000, refreshTokens: 20_000, families: 20_000, sessions: 10_000, interactions: 10_000, revoked: 50_000 };

export class MockStore {
  readonly codes: ExpiringMap<CodeRecord>;
  /** Opaque access tokens (access_token_format opaque); JWT ones need no state. */
  readonly accessTokens: ExpiringMap<OpaqueAccessTokenRecord>;
  readonly refreshTokens: ExpiringMap<RefreshTokenRecord>;
  readonly families: ExpiringMap<FamilyRecord>;
  readonly sessions: ExpiringMap<SessionRecord>;
  readonly interactions: ExpiringMap<InteractionRecord>;
  /** Revoked access-token jti values, kept until the token would have expired anyway. */
  readonly revokedAccessTokens: ExpiringMap<RevokedRecord>;

  constructor(now: () => number) {
    this.codes = new ExpiringMap(LIMITS.codes, now);
    this.accessTokens = new ExpiringMap(LIMITS.accessTokens, now);
    this.refreshTokens = new ExpiringMap(LIMITS.refreshTokens, now);
    this.families = new ExpiringMap(LIMITS.families, now);
    this.sessions = new ExpiringMap(LIMITS.sessions, now);
    this.interactions = new ExpiringMap(LIMITS.interactions, now);
    this.revokedAccessTokens = new ExpiringMap(LIMITS.revoked, now);
  }

  revokeAccessToken(jti: string, expiresAt: number): void {
    this.revokedAccessTokens.set(jti, { expiresAt });
  }

  /** Revokes a refresh-token family and every access token issued in it. */
  revokeFamily(family: string): void {
    const record = this.families.get(family);
    if (!record) return;
    record.revoked = true;
    for (const [jti, exp] of record.accessTokens) this.revokeAccessToken(jti, exp);
  }

  sweep(): void {
    this.codes.sweep();
    this.accessTokens.sweep();
    this.refreshTokens.sweep();
    this.families.sweep();
    this.sessions.sweep();
    this.interactions.sweep();
    this.revokedAccessTokens.sweep();
  }
}
