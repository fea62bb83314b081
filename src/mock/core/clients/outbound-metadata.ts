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

/** How long a registration waits for a name to resolve; past it the name is not refused here (the call checks it). */
const LOOKUP_WAIT_MS = 3000;

function answerWithin<T>(answer: Promise<T | undefined>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms).unref()));
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

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
    const refusal = await answerWithin(checkUrlNow(new URL(value), state.config.outbound), LOOKUP_WAIT_MS);
    if (refusal !== undefined) return `${field}: ${JSON.stringify(value).slice(0, 200)} could not be fetched by this server: ${refusal.message} (${OUTBOUND_RULE})`;
  }
  return undefined;
}
