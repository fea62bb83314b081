import { issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 6749 section 5.1: a response with tokens carries Cache-Control: no-store. */
export const tokenNoStoreProbe: AuditProbe = {
  id: 'token-no-store',
  title: 'token response has Cache-Control: no-store',
  rfc: 'RFC 6749 §5.1',
  category: 'tokens',
  threat: 'RFC 6749 §5.1; RFC 6819 §5.1.6',
  remedy: 'Send Cache-Control: no-store with every response that carries tokens.',
  needsFlow: true,
  async run(ctx) {
    const responses = ctx.exchanges.filter(issuedTokens);
    if (responses.length === 0) return skip('no token response seen');
    const missing = responses.filter((x) => !/(^|,)\s*no-store\s*(,|$)/i.test(x.headers['cache-control'] ?? ''));
    if (missing.length > 0) {
      return fail(`${missing.length} of ${responses.length} token responses lack no-store (Cache-Control: ${missing[0]?.headers['cache-control'] ?? 'absent'})`);
    }
    return pass(`all ${responses.length} token responses carry Cache-Control: ${responses[0]?.headers['cache-control']}`);
  },
};
