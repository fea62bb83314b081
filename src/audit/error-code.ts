import { describeExchange, type TokenExchange } from './exchanges.js';
import { pass, warn, type ProbeOutcome } from './types.js';

/**
 * RFC 6749 section 5.2 names invalid_grant for a code that is used, expired or revoked, issued to
 * another client, or redeemed with another redirect URI (and RFC 7636 section 4.6 for a wrong
 * verifier). One rule for every probe: a refusal with that code passes, one with any other code warns.
 */
export function refusedWithInvalidGrant(x: TokenExchange, what: string, extra = ''): ProbeOutcome {
  const seen = describeExchange(x);
  if (x.error?.error === 'invalid_grant') return pass(`${what} refused: ${seen}${extra}`);
  return warn(`${what} refused, but with ${seen} instead of invalid_grant (RFC 6749 §5.2)${extra}`);
}
