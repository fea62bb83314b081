import { judgeEntropy } from '../../entropy.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 6749 section 10.10: authorization codes cannot be guessed (at most 2^-128 chance). */
export const codeEntropyProbe: AuditProbe = {
  id: 'code-entropy',
  title: 'authorization codes are long and random enough',
  rfc: 'RFC 6749 §10.10',
  category: 'tokens',
  threat: 'RFC 6819 §4.4.1.3 (online guessing of authorization codes)',
  remedy: 'Make codes of at least 128 random bits from a cryptographic generator (e.g. 32 base64url characters).',
  needsFlow: true,
  async run(ctx) {
    const codes = [(await ctx.obtainCode()).code, (await ctx.obtainCode()).code];
    const verdict = judgeEntropy('code', codes);
    return verdict.ok ? pass(verdict.detail) : fail(verdict.detail);
  },
};
