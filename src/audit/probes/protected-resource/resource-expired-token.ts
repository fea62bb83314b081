import { decodeJwtUnverified } from '../../../oauth/jwt.js';
import { present, resourceUrl, serverError, workingToken, notTested, tokenDecision } from '../../protected-resource.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** The clock leeway resources commonly allow (RFC 7519 section 4.1.4: "some small leeway"); the token is presented past it. */
export const LEEWAY_SECONDS = 60;
/** The audit waits at most this long for a token to expire past the leeway; a server with short-lived tokens lets the probe run. */
export const MAX_EXPIRY_WAIT_SECONDS = 75;
/** Past its exp and the leeway by this much, a token still accepted is not a matter of clocks a second apart. */
const PAST_EXP_SECONDS = LEEWAY_SECONDS + 2;

/**
 * RFC 6750 section 3.1 (invalid_token: "expired") and RFC 9700 section 4.10: an access token stops
 * working at the resource once it has expired. Waits out a JWT access token's exp and a usual leeway
 * when that is near, then presents it again.
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
    if (typeof exp !== 'number') return skip('not tested: the access token is opaque, so its expiry cannot be read and waited out');
    const waitMs = (exp + PAST_EXP_SECONDS) * 1000 - Date.now();
    if (waitMs > MAX_EXPIRY_WAIT_SECONDS * 1000) {
      return skip(
        `not tested: the access token expires in ${Math.ceil(waitMs / 1000) - PAST_EXP_SECONDS} s; past a ${LEEWAY_SECONDS} s leeway that is more than the ${MAX_EXPIRY_WAIT_SECONDS} s the audit waits (a test server with tokens of a few seconds lets this probe run)`,
      );
    }
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    const res = await present(ctx, token);
    const decision = tokenDecision(res);
    if (decision === 'server-error') return fail(serverError(res, 'an expired token'));
    if (decision === undefined) return skip(notTested(res));
    if (decision === 'accepted') return fail(`${resourceUrl(ctx)} still answered HTTP ${res.status} to a token ${PAST_EXP_SECONDS} s past its exp, beyond any usual clock leeway`);
    return pass(`${PAST_EXP_SECONDS} s past its exp: HTTP ${res.status}`);
  },
};
