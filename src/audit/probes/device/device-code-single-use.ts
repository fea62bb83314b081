import { authorizeDevice, completeUriOf, pollDevice, waitInterval } from '../../device.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

const MAX_POLLS = 5;

/**
 * RFC 8628 section 3.5 with RFC 6749 section 10.5: a device code, once exchanged for tokens, is spent:
 * the next poll with it gets no tokens. The probe approves a device at the verification page, polls
 * at the server's interval until the tokens come, then polls once more.
 */
export const deviceCodeSingleUseProbe: AuditProbe = {
  id: 'device-code-single-use',
  title: 'device code works once only',
  rfc: 'RFC 8628 §3.5',
  category: 'device',
  threat: 'RFC 8628 §3.5',
  remedy: 'Invalidate a device code once tokens have been issued for it.',
  needsFlow: true,
  async run(ctx) {
    const grant = await authorizeDevice(ctx);
    const page = await ctx.walkPage(completeUriOf(grant));
    if (page.kind === 'redirect' || page.status >= 400)
      return fail(`the verification page did not approve the device: ${page.kind === 'redirect' ? `sent off to ${page.url}` : `HTTP ${page.status} ${page.text}`}`);
    let first;
    for (let i = 0; i < MAX_POLLS; i++) {
      // The interval is between polls (RFC 8628 section 3.5): the first one may go at once.
      if (i > 0) await waitInterval(grant);
      first = await pollDevice(ctx, grant);
      if (first.error?.error !== 'authorization_pending' && first.error?.error !== 'slow_down') break;
    }
    if (!first || !issuedTokens(first)) return fail(`the approved device got no tokens: ${first ? describeExchange(first) : 'no poll'}`);
    await waitInterval(grant);
    const second = await pollDevice(ctx, grant);
    if (issuedTokens(second)) return fail('the same device code got tokens a second time');
    if (second.error?.error !== 'invalid_grant' && second.error?.error !== 'expired_token') return warn(`the second use was refused, but with ${describeExchange(second)}`);
    return pass(`second use refused: ${describeExchange(second)}`);
  },
};
