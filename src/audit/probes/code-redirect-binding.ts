import { describeExchange, issuedTokens } from '../context.js';
import { fail, pass, type Probe } from '../types.js';

/** RFC 6749 section 4.1.3: the token request must carry the redirect_uri the code was issued for. */
export const codeRedirectBindingProbe: Probe = {
  id: 'code-redirect-binding',
  title: 'code bound to its redirect URI',
  rfc: 'RFC 6749 §4.1.3',
  needsFlow: true,
  async run(ctx) {
    const other = new URL(ctx.redirectUri);
    other.pathname = `${other.pathname.replace(/\/$/, '')}/other`;
    const issued = await ctx.obtainCode();
    const changed = await ctx.redeem(issued, { redirect_uri: other.href });
    if (issuedTokens(changed)) return fail(`a code issued for ${ctx.redirectUri} was redeemed with redirect_uri=${other.href}`);
    const again = await ctx.obtainCode();
    const missing = await ctx.redeem(again, { redirect_uri: undefined });
    if (issuedTokens(missing)) return fail('a code was redeemed without the redirect_uri it was issued with');
    return pass(`other redirect_uri refused (${describeExchange(changed)}); missing redirect_uri refused (${describeExchange(missing)})`);
  },
};
