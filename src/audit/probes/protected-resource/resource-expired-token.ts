import { decodeJwtUnverified } from '../../../oauth/jwt.js';
import { present, resourceUrl, workingToken, notTested, tokenDecision } from '../../protected-resource.js';
import { pass, skip, warn, type AuditProbe } from '../../types.js';

/** The audit waits at most this long for a token to expire; a server with short-lived tokens for tests lets the probe run. */
export const MAX_EXPIRY_WAIT_SECONDS = 20;
/** Past its exp by this much, a token still accepted is not a matter of clocks a second apart. */
const PAST_EXP_SECONDS = 2;

/**
 * RFC 6750 section 3.1 (invalid_token: "expired") and RFC 9700 section 4.10: an access token stops
 * working at the resource once it has expired. Waits out a JWT access token's exp when it is near,
 * then presents it again. A resource that still accepts it warns rather than fails: some allow a clock
 * leeway of their own, which the audit cannot tell from a resource that checks no expiry at all.
 */
export const resourceExpiredTokenProbe: AuditProbe = {
  id: 'resource-expired-token',
  title: 'an expired token is refused',
  rfc: 'RFC 6750 §3.1',
  category: 'protected-resource',
  threat: 'RFC 9700 §4.10',
  remedy: 'check exp of JWT access tokens (RFC 9068 section 4), or introspect (RFC 7662); keep any clock leeway to seconds',
  needsFlow: true,
  async run(ctx) {
    const token = await workingToken(ctx);
    const exp = decodeJwtUnverified(token)?.claims.exp;
    if (typeof exp !== 'number') return skip('the access token is opaque: its expiry cannot be read, so the audit cannot wait it out');
    const waitMs = (exp + PAST_EXP_SECONDS) * 1000 - Date.now();
    if (waitMs > MAX_EXPIRY_WAIT_SECONDS * 1000) {
      return skip(`the access token lives another ${Math.ceil(waitMs / 1000)} s; the audit waits at most ${MAX_EXPIRY_WAIT_SECONDS} s (a test server with short-lived tokens lets this probe run)`);
    }
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    const res = await present(ctx, token);
    const decision = tokenDecision(res);
    if (decision === undefined) return skip(notTested(res));
    if (decision === 'accepted') return warn(`${resourceUrl(ctx)} still answered HTTP ${res.status} to a token ${PAST_EXP_SECONDS} s past its exp (a clock leeway, or no expiry check)`);
    return pass(`${PAST_EXP_SECONDS} s past its exp: HTTP ${res.status}`);
  },
};
