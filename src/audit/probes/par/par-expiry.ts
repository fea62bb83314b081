import { push } from '../../pushed-requests.js';
import { codeOf } from '../../outcomes.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';
import { refusal } from '../pkce/pkce-required.js';

/** The longest the audit waits for a request_uri to expire. */
export const PAR_EXPIRY_MAX_WAIT_SECONDS = 10;

/** RFC 9126 section 2.2: a request_uri lives expires_in seconds; after that it is refused. */
export const parExpiryProbe: AuditProbe = {
  id: 'par-expiry',
  title: 'an expired request_uri is refused',
  rfc: 'RFC 9126 §2.2',
  category: 'par',
  threat: 'RFC 9126 §2.2',
  remedy: 'Give pushed requests a short lifetime (expires_in, e.g. 60 s) and refuse them after it.',
  needsFlow: true,
  async run(ctx) {
    const pushed = await push(ctx);
    if (pushed.expiresIn <= 0 || pushed.expiresIn > PAR_EXPIRY_MAX_WAIT_SECONDS) {
      return skip(`expires_in is ${pushed.expiresIn} s; the audit waits at most ${PAR_EXPIRY_MAX_WAIT_SECONDS} s for a request_uri to expire`);
    }
    await new Promise((resolve) => setTimeout(resolve, (pushed.expiresIn + 1) * 1000));
    const outcome = await ctx.walk(ctx.pushedAuthorizationUrl(ctx.config.clientId, pushed.requestUri));
    if (codeOf(outcome) !== undefined) return fail(`a request_uri got a code ${pushed.expiresIn + 1} s after it was pushed, past its expires_in of ${pushed.expiresIn} s`);
    return pass(`refused after ${pushed.expiresIn + 1} s: ${refusal(outcome)}`);
  },
};
