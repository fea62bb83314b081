import { checkUrlNow } from '../../../http/address-policy.js';
import { OUTBOUND_RULE } from '../config/config-outbound.js';
import type { MockState } from '../http/http.js';

/**
 * The client metadata naming a URL the server itself would fetch or post to: its keys (RFC 7591
 * section 2), its back-channel logout endpoint (Back-Channel Logout 1.0 section 2.2), its CIBA
 * notification endpoint (CIBA Core 1.0 section 4) and its sector identifier (OpenID Connect Dynamic
 * Client Registration 1.0 section 2).
 */
const OUTBOUND_FIELDS = ['jwks_uri', 'backchannel_logout_uri', 'backchannel_client_notification_endpoint', 'sector_identifier_uri'];

/**
 * At registration: the first of those URLs whose host the outbound policy refuses (an IP literal, or
 * a name resolved now), as an invalid_client_metadata description; undefined when none is. The
 * answer comes early, for the registrant; each call checks again when it connects (address-policy.ts).
 */
export async function outboundMetadataProblem(state: MockState, input: unknown): Promise<string | undefined> {
  if (typeof input !== 'object' || input === null) return undefined;
  for (const field of OUTBOUND_FIELDS) {
    const value = (input as Record<string, unknown>)[field];
    if (typeof value !== 'string' || !URL.canParse(value)) continue;
    const refusal = await checkUrlNow(new URL(value), state.config.outbound);
    if (refusal !== undefined) return `${field}: ${JSON.stringify(value).slice(0, 200)} could not be fetched by this server: ${refusal.message} (${OUTBOUND_RULE})`;
  }
  return undefined;
}
