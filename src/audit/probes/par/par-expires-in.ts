import { parEndpointOf } from '../../par-endpoint.js';
import { pass, skip, warn, type AuditProbe } from '../../types.js';

/** Ten minutes: RFC 9126 section 2.2 suggests between 5 and 600 seconds. */
const LONGEST_SECONDS = 600;

/** RFC 9126 section 2.2: a request_uri is short-lived, and expires_in says how long. */
export const parExpiresInProbe: AuditProbe = {
  id: 'par-expires-in',
  title: 'a pushed request lives at most ten minutes',
  rfc: 'RFC 9126 §2.2',
  category: 'par',
  threat: 'RFC 9126 §7.3 (request_uri replay within its lifetime)',
  remedy: 'Give request_uri a short lifetime (e.g. 60 s) and send it in expires_in.',
  async run(ctx) {
    parEndpointOf(ctx);
    const pushed = await ctx.pushRequest(ctx.authorizationUrl({ pkce: ctx.freshPkce() }));
    if (pushed.kind !== 'pushed') return skip(`the push was refused: ${pushed.text}`);
    if (!(pushed.expiresIn > 0)) return warn(`expires_in ${String(pushed.expiresIn)} is not a positive number of seconds`);
    if (pushed.expiresIn > LONGEST_SECONDS) return warn(`expires_in ${pushed.expiresIn} s: more than ${LONGEST_SECONDS}`);
    return pass(`expires_in ${pushed.expiresIn} s`);
  },
};
