import type { CodeChallengeMethod } from '../../../oauth/pkce.js';
import { ExpiringMap } from './expiring-map.js';
import type { AuthorizationDetail } from '../../../oauth/authorization-details.js';
import type { JarmResponseMode } from '../../../oauth/jarm.js';

/** How many entries each store of one issuer may hold (library option `limits`, for tests). */
export interface StoreLimits {
  codes: number;
  accessTokens: number;
  refreshTokens: number;
  families: number;
  /** Access tokens of a refresh-token family: jti -> family. */
  familyAccessTokens: number;
  /** Signed-in browser sessions. */
  sessions: number;
  /** Anonymous browser sessions (a login page shown, nobody signed in yet). */
  pendingSessions: number;
  interactions: number;
  revoked: number;
  /** Pushed authorization requests (RFC 9126), and the jti values of DPoP proofs and client assertions seen (security-store.ts). */
  pushedRequests: number;
  dpopProofs: number;
  clientAssertions: number;
  /** Device authorizations (RFC 8628 section 3.2) and their user codes. */
  deviceCodes: number;
  userCodes: number;
}

export const DEFAULT_STORE_LIMITS: Readonly<StoreLimits> = {
  codes: 200_000,
  accessTokens: 200_000,
  refreshTokens: 200_000,
  families: 200_000,
  familyAccessTokens: 400_000,
  sessions: 10_000,
  pendingSessions: 10_000,
  interactions: 20_000,
  revoked: 100_000,
  pushedRequests: 10_000,
  dpopProofs: 100_000,
  clientAssertions: 50_000,
  deviceCodes: 20_000,
  userCodes: 20_000,
};

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
  /** The signed-in session the code was issued in (sid, amr, acr of the ID token), and the claims request parameter's (OpenID Connect Core 5.5). */
  session?: SessionRecord;
  claims?: ClaimsRequest;
  /** RFC 8707 resource indicators and RFC 9449 section 10 dpop_jkt of the authorization request. */
  resources?: string[];
  dpopJkt?: string;
  /** RFC 9396: the authorization details granted with the code. */
  authorizationDetails?: AuthorizationDetail[];
  /** The request-log id of the authorization request (the flows page links the code exchange to it). */
  flow?: number;
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
  /** The session of the first grant, for the sid of refreshed ID tokens. */
  session?: SessionRecord;
  /** The resources granted (RFC 8707 section 2.2), and the DPoP key a public client's token is bound to (RFC 9449 section 5). */
  resources?: string[];
  /** RFC 9396 section 7: the authorization details of the grant, kept for every token the refresh issues. */
  authorizationDetails?: AuthorizationDetail[];
  jkt?: string;
}

/**
 * A refresh-token family (RFC 9700 section 4.14.2): its refresh tokens and access tokens point to it,
 * so revoking it is one flag that reaches all of them, however many rotations there were. It lives as
 * long as the last token issued in it.
 */
export interface FamilyRecord {
  revoked: boolean;
  expiresAt: number;
}

/** An access token issued in a family. */
export interface FamilyAccessTokenRecord {
  family: string;
  expiresAt: number;
}

/** A browser session: the anonymous CSRF token first, the signed-in user after login. */
export interface SessionRecord {
  csrfToken: string;
  username?: string;
  authTime?: number;
  /** Signed in: the session's id in ID and logout tokens (never the cookie's value), how and how strongly (sessions.ts). */
  sid?: string;
  amr?: string[];
  acr?: string;
  /** The clients that got a code in this session: they are told when it ends (Back- and Front-Channel Logout 1.0). */
  clients?: Set<string>;
  /** client_id -> granted scopes, so that consent is asked once per session. */
  consents: Map<string, Set<string>>;
  expiresAt: number;
}

/** The claims request parameter (OpenID Connect Core 5.5): claim names asked for in the ID token and at userinfo. */
export interface ClaimsRequest {
  idToken: string[];
  userinfo: string[];
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
  /** OpenID Connect Core 3.1.2.1 (oidc-params.ts); response_mode form_post (OAuth 2.0 Form Post Response Mode). */
  maxAge?: number;
  idTokenHintSub?: string;
  loginHint?: string;
  acrValues?: string[];
  claims?: ClaimsRequest;
  formPost?: boolean;
  /** JARM: the response goes back as a signed JWT (src/mock/core/authorization/jarm.ts). */
  responseMode?: JarmResponseMode;
  /** RFC 9396: what the client asks for, checked against authorization_details_types. */
  authorizationDetails?: AuthorizationDetail[];
  resources?: string[];
  dpopJkt?: string;
  /** Its id in the request log, which later steps (login, consent, code exchange) name as their flow. */
  flow?: number;
  /** Set when the login and consent approve a device (RFC 8628 section 3.3): its device code. */
  device?: string;
}

/** A device authorization (RFC 8628 section 3.2) and what became of it. */
export interface DeviceCodeRecord {
  clientId: string;
  /** 8 letters, without the dash. */
  userCode: string;
  scopes: string[];
  /** When the device code stops working (ms); the record itself is kept a while longer, to answer expired_token. */
  codeExpiresAt: number;
  expiresAt: number;
  /** Seconds the client must wait between polls; slow_down adds 5 (RFC 8628 section 3.5). */
  interval: number;
  lastPolledAt?: number;
  /** Wrong user codes typed anywhere before this one was issued (user-code-guesses.ts: a code sees a bounded number of guesses). */
  wrongGuessesAtIssue?: number;
  status: 'pending' | 'approved' | 'denied' | 'redeemed';
  username?: string;
  authTime?: number;
  /** The browser session that approved it: its sid goes into the device's ID token. */
  session?: SessionRecord;
}

/** A user code -> its device code. */
export interface UserCodeRecord {
  deviceCode: string;
  expiresAt: number;
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
  /** RFC 8693 section 4.1: the actor of an exchanged token. */
  act?: Record<string, unknown>;
  /** RFC 9396 section 9.1: the granted authorization details. */
  authorization_details?: AuthorizationDetail[];
};

/** An opaque access token: its claims, kept a while past `exp` so that the API can say "expired". */
export interface OpaqueAccessTokenRecord {
  claims: AccessTokenClaims;
  expiresAt: number;
}

export interface RevokedRecord {
  expiresAt: number;
}

/** Revocations asked for at /revoke leave this share of the revocation store to those a reused code or refresh token triggers. */
const REVOKE_RESERVE = 0.1;

export class MockStore {
  readonly codes: ExpiringMap<CodeRecord>;
  /** Opaque access tokens (access_token_format opaque); JWT ones need no state. */
  readonly accessTokens: ExpiringMap<OpaqueAccessTokenRecord>;
  readonly refreshTokens: ExpiringMap<RefreshTokenRecord>;
  readonly families: ExpiringMap<FamilyRecord>;
  readonly familyAccessTokens: ExpiringMap<FamilyAccessTokenRecord>;
  /** Signed-in sessions: anonymous requests cannot fill this store. */
  readonly sessions: ExpiringMap<SessionRecord>;
  /** Anonymous sessions, bounded on their own. */
  readonly pendingSessions: ExpiringMap<SessionRecord>;
  readonly interactions: ExpiringMap<InteractionRecord>;
  /** Revoked access-token jti values, kept until the token would have expired anyway. */
  readonly revokedAccessTokens: ExpiringMap<RevokedRecord>;
  /** Clients deleted by RFC 7592, kept as long as a token issued to them could live. */
  readonly deletedClients: ExpiringMap<RevokedRecord>;
  readonly deviceCodes: ExpiringMap<DeviceCodeRecord>;
  readonly userCodes: ExpiringMap<UserCodeRecord>;

  constructor(
    private readonly now: () => number,
    private readonly limits: Partial<StoreLimits> = {},
  ) {
    const l = { ...DEFAULT_STORE_LIMITS, ...limits };
    this.codes = new ExpiringMap(l.codes, now, 'authorization codes');
    this.accessTokens = new ExpiringMap(l.accessTokens, now, 'access tokens');
    this.refreshTokens = new ExpiringMap(l.refreshTokens, now, 'refresh tokens');
    this.families = new ExpiringMap(l.families, now, 'refresh token families');
    this.familyAccessTokens = new ExpiringMap(l.familyAccessTokens, now, 'access tokens of refresh token families');
    this.sessions = new ExpiringMap(l.sessions, now, 'signed-in sessions');
    this.pendingSessions = new ExpiringMap(l.pendingSessions, now, 'sessions waiting for a login');
    this.interactions = new ExpiringMap(l.interactions, now, 'pending sign-ins');
    this.revokedAccessTokens = new ExpiringMap(l.revoked, now, 'revoked access tokens');
    this.deletedClients = new ExpiringMap(l.revoked, now, 'deleted clients');
    this.deviceCodes = new ExpiringMap(l.deviceCodes, now, 'device codes');
    this.userCodes = new ExpiringMap(l.userCodes, now, 'user codes');
  }

  /** The bound of one store, for the stores kept beside this one (security-store.ts). */
  limit(name: keyof StoreLimits): number {
    return this.limits[name] ?? DEFAULT_STORE_LIMITS[name];
  }

  /** RFC 7009: a client revokes an access token; refused (503) when only the reserve is left. */
  revokeAccessToken(jti: string, expiresAt: number): void {
    this.revokedAccessTokens.set(jti, { expiresAt }, Math.floor(this.revokedAccessTokens.max * REVOKE_RESERVE));
  }

  /** A reused code revokes what its first use issued (RFC 6749 section 4.1.2): may use the reserve. */
  revokeAfterReuse(jti: string, expiresAt: number): void {
    this.revokedAccessTokens.set(jti, { expiresAt });
  }

  /** Revokes a refresh-token family: every refresh and access token issued in it. Needs no room. */
  revokeFamily(family: string): void {
    const record = this.families.get(family);
    if (record) record.revoked = true;
  }

  /**
   * RFC 7592 section 2.3: a deleted client's grants and tokens are invalidated. Its codes, device codes
   * and refresh tokens go (their families revoked, which reaches the access tokens issued with them);
   * any other access token of the client, JWT or opaque, is refused by its `client_id` until
   * `expiresAt`, the latest any of them could expire. Needs no room: a deletion is never refused.
   */
  revokeClient(clientId: string, expiresAt: number): void {
    this.deletedClients.set(clientId, { expiresAt });
    for (const [code, record] of this.codes.entries()) if (record.clientId === clientId) this.codes.delete(code);
    for (const [code, record] of this.deviceCodes.entries()) if (record.clientId === clientId) this.deviceCodes.delete(code);
    for (const [token, record] of this.refreshTokens.entries()) {
      if (record.clientId !== clientId) continue;
      this.revokeFamily(record.family);
      this.refreshTokens.delete(token);
    }
    for (const [token, record] of this.accessTokens.entries()) if (record.claims.client_id === clientId) this.accessTokens.delete(token);
  }

  /** Whether an access token was revoked, on its own, with its family, or with its client. */
  isAccessTokenRevoked(jti: string, clientId?: string): boolean {
    if (this.revokedAccessTokens.get(jti)) return true;
    if (clientId !== undefined && this.deletedClients.get(clientId)) return true;
    const inFamily = this.familyAccessTokens.get(jti);
    return inFamily !== undefined && this.families.get(inFamily.family)?.revoked !== false;
  }

  /** Records an access token as issued in a family, which then lives at least as long as the token. */
  addToFamily(family: string, record: FamilyRecord, jti: string, accessTokenExpiresAt: number): void {
    this.familyAccessTokens.set(jti, { family, expiresAt: accessTokenExpiresAt });
    if (record.expiresAt < accessTokenExpiresAt) record.expiresAt = accessTokenExpiresAt;
  }

  /** Throws StoreFullError unless one token response fits: an opaque access token, a refresh token of a family. */
  ensureRoomForTokens(opaque: boolean, refresh: boolean): void {
    if (opaque) this.accessTokens.ensureRoom();
    if (refresh) {
      this.refreshTokens.ensureRoom();
      this.families.ensureRoom();
      this.familyAccessTokens.ensureRoom();
    }
  }

  /** An empty store with the same clock and bounds (the admin API's reset). */
  emptied(): MockStore {
    return new MockStore(this.now, this.limits);
  }

  sweep(): void {
    this.codes.sweep();
    this.accessTokens.sweep();
    this.refreshTokens.sweep();
    this.families.sweep();
    this.familyAccessTokens.sweep();
    this.sessions.sweep();
    this.pendingSessions.sweep();
    this.interactions.sweep();
    this.revokedAccessTokens.sweep();
    this.deletedClients.sweep();
    this.deviceCodes.sweep();
    this.userCodes.sweep();
  }
}
