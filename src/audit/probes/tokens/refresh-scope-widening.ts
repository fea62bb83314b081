import { describeExchange, issuedTokens } from '../../exchanges.js';
import { freshTokens } from '../../fresh-tokens.js';
import { listOf } from '../../metadata-document.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 6749 section 6: a refresh MUST NOT include a scope not originally granted. */
export const refreshScopeWideningProbe: AuditProbe = {
  id: 'refresh-scope-widening',
  title: 'a refresh cannot widen the scope',
  rfc: 'RFC 6749 §6',
  category: 'tokens',
  threat: 'RFC 6819 §5.1.5.1 (scope escalation through the refresh token)',
  remedy: 'Refuse a refresh whose scope is not within the scope originally granted (invalid_scope).',
  needsFlow: true,
  async run(ctx) {
    const { body } = await freshTokens(ctx);
    if (typeof body.refresh_token !== 'string') return skip('no refresh token was issued (ask for offline_access in --scope)');
    const granted = typeof body.scope === 'string' ? body.scope.split(' ') : [...ctx.config.scopes];
    const known = (ctx.metadata ? listOf(ctx.metadata as Record<string, unknown>, 'scopes_supported') : undefined) ?? [];
    const extra = known.find((s) => !granted.includes(s) && s !== 'openid' && s !== 'offline_access') ?? 'oauthctl-audit-extra-scope';
    const widened = [...granted, extra].join(' ');
    const refreshed = await ctx.token({ grant_type: 'refresh_token', refresh_token: body.refresh_token, scope: widened });
    if (!issuedTokens(refreshed)) return pass(`scope ${JSON.stringify(extra)} added at refresh refused: ${describeExchange(refreshed)}`);
    const scope = (refreshed.json as Record<string, unknown>).scope;
    if (typeof scope === 'string' && !scope.split(' ').includes(extra)) return pass(`the refresh ignored the added ${JSON.stringify(extra)} (scope ${scope})`);
    return fail(`the refresh granted ${JSON.stringify(extra)}, which the login did not${typeof scope === 'string' ? '' : ' (no scope in the response: it is the requested one, RFC 6749 §5.1)'}`);
  },
};
