import { judgeEntropy } from '../../entropy.js';
import { freshTokens } from '../../fresh-tokens.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 6749 section 10.10: refresh tokens cannot be guessed. */
export const refreshTokenEntropyProbe: AuditProbe = {
  id: 'refresh-token-entropy',
  title: 'refresh tokens are long and random enough (or signed)',
  rfc: 'RFC 6749 §10.10',
  category: 'tokens',
  threat: 'RFC 6819 §4.5.2 (guessing refresh tokens)',
  remedy: 'Issue refresh tokens of at least 128 random bits.',
  needsFlow: true,
  async run(ctx) {
    const first = (await freshTokens(ctx)).body.refresh_token;
    if (typeof first !== 'string') return skip('no refresh token was issued (ask for offline_access in --scope)');
    const verdict = judgeEntropy('refresh token', [first, String((await freshTokens(ctx)).body.refresh_token)]);
    return verdict.ok ? pass(verdict.detail) : fail(verdict.detail);
  },
};
