import { race, raceSummary, PARALLEL_REQUESTS } from '../../parallel.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 6749 section 4.1.2: a code is used once, also when the uses arrive together (a race in check-then-mark). */
export const codeParallelRedemptionProbe: AuditProbe = {
  id: 'code-parallel-redemption',
  title: 'a code redeemed several times at once gets tokens at most once',
  rfc: 'RFC 6749 §4.1.2',
  category: 'concurrency',
  threat: 'RFC 9700 §4.5 (code injection and replay); RFC 6819 §5.1.5.4 (one-time use)',
  remedy: 'Mark a code used atomically (compare-and-set in one step) before issuing tokens for it.',
  needsFlow: true,
  async run(ctx) {
    const issued = await ctx.obtainCode();
    const { exchanges, successes } = await race(() => ctx.redeem(issued));
    const summary = raceSummary(exchanges);
    if (successes.length > 1) return fail(`${successes.length} of ${PARALLEL_REQUESTS} parallel redemptions got tokens (${summary})`);
    if (successes.length === 0) return warn(`none of ${PARALLEL_REQUESTS} parallel redemptions got tokens (${summary})`);
    return pass(`one success in ${PARALLEL_REQUESTS} (${summary})`);
  },
};
