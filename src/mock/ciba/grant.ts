import { pollTooSoon } from '../../oauth/polling.js';
import type { MockClient } from '../core/config/config.js';
import { sendOAuthError, type Exchange } from '../core/http/http.js';
import type { TokenBinding } from '../core/tokens/token-binding.js';
import { redeemApprovedGrant, type SendUserTokens } from '../endpoints/token-device.js';
import { cibaRequests } from './store.js';

/**
 * grant_type=urn:openid:params:grant-type:ciba (CIBA Core 1.0 section 10.1): the answer to one token
 * request. Checked in this order: the auth_req_id and its client (invalid_grant, section 11), expiry
 * (expired_token), a request already redeemed (single use) or refused (access_denied), polling faster
 * than the interval (slow_down, which also lengthens it: the device grant's rule), then
 * authorization_pending, or the tokens.
 */
export async function handleCibaGrant(ex: Exchange, client: MockClient, values: Map<string, string>, binding: TokenBinding, sendTokens: SendUserTokens): Promise<void> {
  const { state } = ex;
  const authReqId = values.get('auth_req_id');
  if (!authReqId) return sendOAuthError(ex, 400, 'invalid_request', 'auth_req_id is missing (CIBA Core section 10.1)');
  const record = cibaRequests(state.store, () => state.now()).get(authReqId);
  if (!record) return sendOAuthError(ex, 400, 'invalid_grant', 'the auth_req_id is unknown (CIBA Core section 11)');
  if (record.clientId !== client.clientId) return sendOAuthError(ex, 400, 'invalid_grant', 'the auth_req_id was issued to another client (CIBA Core section 11)');
  const now = state.now();
  if (record.requestExpiresAt <= now) return sendOAuthError(ex, 400, 'expired_token', 'the auth_req_id has expired; send a new backchannel authentication request (CIBA Core section 11)');
  if (record.status === 'redeemed') return sendOAuthError(ex, 400, 'invalid_grant', 'the auth_req_id was already used (it works once)');
  if (record.status === 'denied') return sendOAuthError(ex, 400, 'access_denied', 'the user refused the request (CIBA Core section 11)');
  if (pollTooSoon(record, now)) {
    return sendOAuthError(ex, 400, 'slow_down', `polled sooner than the interval; wait ${record.interval} s between polls from now on (CIBA Core section 11)`);
  }
  if (record.status === 'pending') return sendOAuthError(ex, 400, 'authorization_pending', 'the user has not decided yet (CIBA Core section 11)');
  await redeemApprovedGrant(ex, client, record, record.username, binding, sendTokens);
}
