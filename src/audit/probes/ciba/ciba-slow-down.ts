import { pollCiba, requestCiba } from '../../ciba.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * CIBA Core 1.0 section 11 (the device grant's rule, RFC 8628 section 3.5): a client polling faster
 * than the interval is told slow_down. The probe polls a pending request twice at once.
 */
export const cibaSlowDownProbe: AuditProbe = {
  id: 'ciba-slow-down',
  title: 'polling faster than the interval gets slow_down',
  rfc: 'CIBA Core §11',
  category: 'ciba',
  threat: 'OpenID Connect CIBA Core §7.3 and §11 (a client that ignores the interval loads the server)',
  remedy: 'Answer slow_down to a token request sooner than the interval after the previous one, and lengthen the interval by 5 s.',
  async run(ctx) {
    const request = await requestCiba(ctx);
    const first = await pollCiba(ctx, request.authReqId);
    if (issuedTokens(first)) return skip('the server approved the request at once (a test server that approves every request), so nothing was pending to poll');
    const second = await pollCiba(ctx, request.authReqId);
    if (issuedTokens(second)) return fail('a request nobody approved got tokens');
    const seen = `${describeExchange(first)}, then ${describeExchange(second)}`;
    if (first.error?.error === 'slow_down' || second.error?.error === 'slow_down') return pass(`two polls at once (interval ${request.interval} s): ${seen}`);
    return warn(`two polls at once (interval ${request.interval} s) got ${seen}: no slow_down, so nothing holds a client to the interval`);
  },
};
