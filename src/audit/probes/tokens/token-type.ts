import { freshTokens } from '../../fresh-tokens.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 6749 section 5.1 (token_type REQUIRED) and RFC 6750 section 4 / RFC 9449 section 5: a type the client knows how to use. */
export const tokenTypeProbe: AuditProbe = {
  id: 'token-type',
  title: 'the token response names a known token_type',
  rfc: 'RFC 6749 §5.1',
  category: 'tokens',
  threat: 'RFC 6749 §7.1 (a client that cannot tell how to present the token)',
  remedy: 'Send token_type Bearer (RFC 6750) or DPoP (RFC 9449) with every access token.',
  needsFlow: true,
  async run(ctx) {
    const type = (await freshTokens(ctx)).body.token_type;
    if (typeof type !== 'string') return fail('the token response has no token_type (RFC 6749 §5.1: REQUIRED)');
    if (!['bearer', 'dpop'].includes(type.toLowerCase())) return fail(`token_type ${JSON.stringify(type)} is neither Bearer nor DPoP`);
    return pass(`token_type ${type}`);
  },
};
