import { judgeEntropy } from '../../entropy.js';
import { freshTokens } from '../../fresh-tokens.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 6749 section 10.10 and RFC 6750 section 5.2: access tokens cannot be guessed. */
export const accessTokenEntropyProbe: AuditProbe = {
  id: 'access-token-entropy',
  title: 'access tokens are long and random enough (or signed)',
  rfc: 'RFC 6749 §10.10',
  category: 'tokens',
  threat: 'RFC 6819 §4.6.3 (guessing access tokens); RFC 6750 §5.2',
  remedy: 'Issue access tokens of at least 128 random bits, or signed JWTs.',
  needsFlow: true,
  async run(ctx) {
    const tokens = [String((await freshTokens(ctx)).body.access_token), String((await freshTokens(ctx)).body.access_token)];
    const verdict = judgeEntropy('access token', tokens);
    return verdict.ok ? pass(verdict.detail) : fail(verdict.detail);
  },
};
