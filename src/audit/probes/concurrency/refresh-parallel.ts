import { issuedTokens } from '../../exchanges.js';
import { freshTokens } from '../../fresh-tokens.js';
import { race, raceSummary, PARALLEL_REQUESTS } from '../../parallel.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * RFC 9700 section 4.14.2: a rotated refresh token used several times at once gets tokens at most once,
 * and the reuse revokes the family (the refresh token that one success got stops working).
 */
export const refreshParallelProbe: AuditProbe = {
  id: 'refresh-parallel',
  title: 'a refresh token used several times at once refreshes at most once, and its family is revoked',
  rfc: 'RFC 9700 §4.14.2',
  category: 'concurrency',
  threat: 'RFC 9700 §4.14 (refresh token replay racing the legitimate client)',
  remedy: 'Rotate refresh tokens atomically; treat a concurrent second use as reuse and revoke the family.',
  needsFlow: true,
  async run(ctx) {
    const { body } = await freshTokens(ctx);
    if (typeof body.refresh_token !== 'string') return skip('no refresh token was issued (ask for offline_access in --scope)');
    const refreshToken = body.refresh_token;
    const { exchanges, successes } = await race(() => ctx.token({ grant_type: 'refresh_token', refresh_token: refreshToken }));
    const summary = raceSummary(exchanges);
    const rotated = successes.map((x) => (x.json as Record<string, unknown>).refresh_token).filter((r): r is string => typeof r === 'string' && r !== refreshToken);
    if (successes.length > 1 && rotated.length > 0) return fail(`${successes.length} of ${PARALLEL_REQUESTS} parallel refreshes got tokens (${summary})`);
    // Without rotation a refresh token is reusable by design: bound by client authentication for a confidential client (RFC 9700 §4.14.2).
    if (successes.length > 1 && !ctx.isPublicClient)
      return pass(`not rotated, so all ${successes.length} succeeded (${summary}): the refresh token of a confidential client is bound by its authentication`);
    if (successes.length > 1) return warn(`${successes.length} parallel refreshes succeeded, the refresh token of a public client not rotated (${summary}; see refresh-rotation)`);
    const newest = rotated[0];
    if (newest === undefined) return pass(`at most one success (${summary}); no rotated refresh token to check the family with`);
    const after = await ctx.token({ grant_type: 'refresh_token', refresh_token: newest });
    if (issuedTokens(after)) return warn(`one success in ${PARALLEL_REQUESTS} (${summary}), but the reuse did not revoke the family: its new refresh token still works`);
    return pass(`one success in ${PARALLEL_REQUESTS} (${summary}); the family was revoked`);
  },
};
