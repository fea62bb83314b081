import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 9700 section 2.1.2: the code flow's redirect carries no token (nothing for the browser history or Referer to leak). */
export const authorizeCodeOnlyProbe: AuditProbe = {
  id: 'authorize-code-only',
  title: 'the code flow redirect carries no access token',
  rfc: 'RFC 9700 §2.1.2',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.3.2 (access token leakage in the browser history)',
  remedy: 'Answer response_type=code with a code only; send tokens from the token endpoint.',
  needsFlow: true,
  async run(ctx) {
    const { params } = await ctx.obtainCode();
    const leaked = ['access_token', 'refresh_token'].filter((p) => params[p] !== undefined);
    if (leaked.length > 0) return fail(`the redirect carries ${leaked.join(' and ')}`);
    return pass(`the redirect carries ${Object.keys(params).sort().join(', ')}`);
  },
};
