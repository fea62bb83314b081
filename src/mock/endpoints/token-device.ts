import type { MockClient } from '../core/config/config.js';
import { sendOAuthError, type Exchange } from '../core/http/http.js';
import { newJti } from '../core/tokens/jwt.js';
import { serverToken } from '../core/store/random-pool.js';
import type { TokenBinding } from '../core/tokens/token-binding.js';
import type { SessionRecord } from '../core/store/store.js';
import { pollTooSoon } from '../../oauth/polling.js';

/** What the token endpoint's sendTokens needs for a grant made by a user. */
export interface UserGrant {
  username: string;
  scopes: string[];
  refreshScopes: string[];
  authTime: number;
  jti: string;
  family?: string;
  binding: TokenBinding;
  session?: SessionRecord;
}
export type SendUserTokens = (ex: Exchange, client: MockClient, grant: UserGrant) => Promise<void>;

/**
 * grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 section 3.4): the answer to one
 * poll. Checked in this order: the code and its client, expiry (expired_token), a code already redeemed
 * (single use) or denied (access_denied), polling faster than the interval (slow_down, which also
 * lengthens it), then authorization_pending, or the tokens.
 */
export async function handleDeviceCodeGrant(ex: Exchange, client: MockClient, values: Map<string, string>, binding: TokenBinding, sendTokens: SendUserTokens): Promise<void> {
  const { state } = ex;
  const deviceCode = values.get('device_code');
  if (!deviceCode) return sendOAuthError(ex, 400, 'invalid_request', 'device_code is missing (RFC 8628 section 3.4)');
  const record = state.store.deviceCodes.get(deviceCode);
  if (!record) return sendOAuthError(ex, 400, 'invalid_grant', 'the device code is unknown');
  if (record.clientId !== client.clientId) return sendOAuthError(ex, 400, 'invalid_grant', 'the device code was issued to another client');
  const now = state.now();
  if (record.codeExpiresAt <= now) return sendOAuthError(ex, 400, 'expired_token', 'the device code has expired; start a new device authorization (RFC 8628 section 3.5)');
  if (record.status === 'redeemed') return sendOAuthError(ex, 400, 'invalid_grant', 'the device code was already used (it works once)');
  if (record.status === 'denied') return sendOAuthError(ex, 400, 'access_denied', 'the user refused access to the device');
  if (pollTooSoon(record, now)) {
    return sendOAuthError(ex, 400, 'slow_down', `polled sooner than the interval; wait ${record.interval} s between polls from now on (RFC 8628 section 3.5)`);
  }
  if (record.status === 'pending' || record.username === undefined) {
    return sendOAuthError(ex, 400, 'authorization_pending', 'the user has not finished at the verification page yet');
  }
  await redeemApprovedGrant(ex, client, record, record.username, binding, sendTokens);
}

/** A grant a user approved elsewhere (a device code, a CIBA request), as the token endpoint redeems it. */
export interface ApprovedGrant {
  status: string;
  scopes: string[];
  authTime?: number | undefined;
  session?: SessionRecord | undefined;
}

/**
 * Issues the tokens of an approved decoupled grant (RFC 8628 section 3.5, CIBA Core section 10.1.1):
 * room in the store first (a full store refuses with 503 and the grant stays approved), then the grant
 * marked redeemed before the first await, so that a concurrent second poll already sees it.
 */
export async function redeemApprovedGrant(ex: Exchange, client: MockClient, record: ApprovedGrant, username: string, binding: TokenBinding, sendTokens: SendUserTokens): Promise<void> {
  const { state } = ex;
  const now = state.now();
  const offline = record.scopes.includes('offline_access');
  state.store.ensureRoomForTokens(state.config.accessTokenFormat === 'opaque', offline);
  record.status = 'redeemed';
  const family = offline ? serverToken(128) : undefined;
  const jti = newJti();
  if (family) {
    const familyRecord = { revoked: false, expiresAt: now + state.config.lifetimes.refreshToken * 1000 };
    state.store.families.set(family, familyRecord);
    state.store.addToFamily(family, familyRecord, jti, now + state.config.lifetimes.accessToken * 1000);
  }
  await sendTokens(ex, client, {
    username,
    scopes: record.scopes,
    refreshScopes: record.scopes,
    authTime: record.authTime ?? now,
    jti,
    binding,
    ...(family ? { family } : {}),
    ...(record.session ? { session: record.session } : {}),
  });
}
