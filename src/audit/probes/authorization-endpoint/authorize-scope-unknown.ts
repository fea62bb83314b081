import { describeExchange, issuedTokens } from '../../exchanges.js';
import { refusal } from '../pkce/pkce-required.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

const UNKNOWN = 'oauthctl-audit-unknown-scope';

/** RFC 6749 section 3.3: the server grants what it knows and may grant; an unknown scope is refused or left out. */
export const authorizeScopeUnknownProbe: AuditProbe = {
  id: 'authorize-scope-unknown',
  title: 'an unknown scope is refused or left out of the grant',
  rfc: 'RFC 6749 §3.3',
  category: 'authorization-endpoint',
  threat: 'RFC 6819 §5.1.5.1 (scope not limited to what was authorized)',
  remedy: 'Refuse unknown scopes with invalid_scope, or leave them out and return the granted scope.',
  needsFlow: true,
  async run(ctx) {
    const pkce = ctx.usesPkce ? ctx.freshPkce() : undefined;
    const outcome = await ctx.authorize({ scopes: [...ctx.config.scopes, UNKNOWN], pkce: pkce ?? null });
    if (outcome.kind !== 'redirect' || outcome.params.code === undefined) return pass(refusal(outcome) ?? 'refused');
    const exchange = await ctx.redeem({ code: outcome.params.code, redirectUri: ctx.redirectUri, pkce, params: outcome.params });
    if (!issuedTokens(exchange)) return pass(`the code was not redeemable: ${describeExchange(exchange)}`);
    const scope = (exchange.json as Record<string, unknown>).scope;
    if (typeof scope !== 'string') return warn(`tokens issued without a scope member: by RFC 6749 §5.1 that means the requested scope, ${UNKNOWN} included`);
    if (scope.split(' ').includes(UNKNOWN)) return fail(`the unknown scope was granted (scope ${scope})`);
    return pass(`left out of the grant (scope ${scope})`);
  },
};
