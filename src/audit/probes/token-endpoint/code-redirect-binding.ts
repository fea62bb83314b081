import { describeExchange, issuedTokens } from '../../exchanges.js';
import { refusedWithInvalidGrant } from '../../error-code.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/**
 * RFC 6749 section 4.1.3: a code is redeemed only with the redirect_uri it was issued for. Another
 * value is a failure. A missing one is a warning: section 4.1.3 requires it, but it is harmless when
 * the client has a single registered redirect URI, and OAuth 2.1 drops the rule since PKCE binds the code.
 */
export const codeRedirectBindingProbe: AuditProbe = {
  id: 'code-redirect-binding',
  title: 'code bound to its redirect URI',
  rfc: 'RFC 6749 §4.1.3',
  category: 'token-endpoint',
  threat: 'RFC 6819 §4.4.1.7 (code leaked through a redirect URI)',
  remedy: 'Refuse a code whose redirect_uri at the token endpoint differs from the authorization request.',
  needsFlow: true,
  async run(ctx) {
    const other = new URL(ctx.redirectUri);
    other.pathname = `${other.pathname.replace(/\/$/, '')}/other`;
    const issued = await ctx.obtainCode();
    const changed = await ctx.redeem(issued, { redirect_uri: other.href });
    if (issuedTokens(changed)) return fail(`a code issued for ${ctx.redirectUri} was redeemed with redirect_uri=${other.href}`);
    const otherUri = refusedWithInvalidGrant(changed, 'other redirect_uri');
    const again = await ctx.obtainCode();
    const missing = await ctx.redeem(again, { redirect_uri: undefined });
    if (issuedTokens(missing)) {
      return warn(
        `other redirect_uri refused (${describeExchange(changed)}), but a code was redeemed without redirect_uri (RFC 6749 §4.1.3 requires it; harmless only with a single registered redirect URI)`,
      );
    }
    const text = `${otherUri.detail}; missing redirect_uri refused (${describeExchange(missing)})`;
    return otherUri.status === 'pass' ? pass(text) : warn(text);
  },
};
