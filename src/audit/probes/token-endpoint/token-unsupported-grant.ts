import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 6749 section 5.2: a grant type the server does not support is refused with unsupported_grant_type. */
export const tokenUnsupportedGrantProbe: AuditProbe = {
  id: 'token-unsupported-grant',
  title: 'an unknown grant_type is refused with unsupported_grant_type',
  rfc: 'RFC 6749 §5.2',
  category: 'token-endpoint',
  threat: 'RFC 6749 §5.2 (a client that cannot tell what went wrong)',
  remedy: 'Answer unknown grant types with HTTP 400 unsupported_grant_type.',
  async run(ctx) {
    const exchange = await ctx.token({ grant_type: 'urn:oauthctl:audit:unknown-grant' });
    if (issuedTokens(exchange)) return fail('an unknown grant type got tokens');
    if (exchange.status >= 500) return fail(`the server failed: ${describeExchange(exchange)}`);
    if (exchange.status !== 400 || exchange.error?.error !== 'unsupported_grant_type') return warn(`refused with ${describeExchange(exchange)}, not HTTP 400 unsupported_grant_type`);
    return pass(describeExchange(exchange));
  },
};
