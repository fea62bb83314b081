import { ProbeFailure } from '../../probe-errors.js';
import { endSessionEndpoint, idTokenOf, NO_END_SESSION, openidScopes } from '../../sessions.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

const OTHER_SUB = 'oauthctl-audit-other-user';

/**
 * OpenID Connect Core 3.1.2.1: with prompt=none, an id_token_hint naming someone other than the signed-in
 * user must not yield a code for the signed-in user; the server answers login_required (or refuses the
 * hint). The hint is the audit's own ID token with another sub (its signature then fails too: a server
 * that reads the hint without checking it is caught as well).
 */
export const idTokenHintOtherUserProbe: AuditProbe = {
  id: 'id-token-hint-other-user',
  title: "another user's id_token_hint is not honoured silently",
  rfc: 'OpenID Connect Core §3.1.2.1',
  category: 'sessions',
  threat: 'OpenID Connect Core §3.1.2.1 (a relying party that asked for one user silently gets another)',
  remedy: 'with prompt=none, answer login_required when the id_token_hint does not name the signed-in user, and refuse a hint whose signature fails',
  needsFlow: true,
  async run(ctx) {
    if (!endSessionEndpoint(ctx)) return NO_END_SESSION;
    const scopes = openidScopes(ctx);
    if (!scopes) return skip('the server does not support the openid scope');
    const own = idTokenOf(await ctx.redeem(await ctx.obtainCode({ scopes })));
    if (!own) throw new ProbeFailure('the token response has no ID token to make a hint from');
    const silent = await ctx.authorize({ scopes, extraParams: { prompt: 'none' }, pkce: ctx.usesPkce ? ctx.freshPkce() : null });
    if (silent.kind !== 'redirect' || silent.params.code === undefined) return skip('prompt=none gives no code even for the signed-in user, so a refused hint would show nothing');
    const [header, , signature] = own.token.split('.');
    const claims = Buffer.from(JSON.stringify({ ...own.claims, sub: OTHER_SUB })).toString('base64url');
    const hint = `${header}.${claims}.${signature}`;
    const outcome = await ctx.authorize({ scopes, extraParams: { prompt: 'none', id_token_hint: hint }, pkce: ctx.usesPkce ? ctx.freshPkce() : null });
    if (outcome.kind === 'redirect' && outcome.params.code !== undefined) return fail(`a code was issued for the signed-in user although the id_token_hint names ${OTHER_SUB}`);
    if (outcome.kind === 'redirect') return pass(`refused with error=${outcome.params.error ?? '(none)'}`);
    return pass(`no code (${outcome.kind === 'page' ? `HTTP ${outcome.status} page` : outcome.kind})`);
  },
};
