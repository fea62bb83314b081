import { parseWwwAuthenticate } from '../../../oauth/www-authenticate.js';
import { present, requiredScopes, serverError, tokenFor, workingToken, notTested, tokenDecision } from '../../protected-resource.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 6750 section 3.1: a token without the scope the resource needs gets 403 insufficient_scope, naming the scope. */
export const resourceInsufficientScopeProbe: AuditProbe = {
  id: 'resource-insufficient-scope',
  title: 'a token without the needed scope gets 403 insufficient_scope',
  rfc: 'RFC 6750 §3.1',
  category: 'protected-resource',
  threat: 'RFC 6819 §5.1.5.1',
  remedy: 'check the scope of every token; answer 403 with WWW-Authenticate: Bearer error="insufficient_scope", scope="<needed>"',
  needsFlow: true,
  async run(ctx) {
    const needed = await requiredScopes(ctx);
    if (needed.length === 0) return skip('the resource names no scope it needs (no scope in its 401, no scopes_supported)');
    await workingToken(ctx);
    const others = (ctx.metadata?.scopes_supported ?? []).filter((s) => !needed.includes(s));
    const narrow = others.find((s) => s === 'openid') ?? others[0];
    if (narrow === undefined) return skip(`the server names no scope besides ${needed.join(' ')} to ask for instead`);
    const token = await tokenFor(ctx, { scopes: [narrow] });
    const res = await present(ctx, token);
    const decision = tokenDecision(res);
    if (decision === 'server-error') return fail(serverError(res, `a token with scope "${narrow}" only`));
    if (decision === undefined) return skip(notTested(res));
    if (decision === 'accepted') return fail(`a token with scope "${narrow}" only was accepted (HTTP ${res.status}); the resource needs ${needed.join(' ')}`);
    const challenge = parseWwwAuthenticate(res.headers['www-authenticate'] ?? '').find((c) => /^(bearer|dpop)$/i.test(c.scheme))?.params ?? {};
    if (res.status !== 403 || challenge.error !== 'insufficient_scope') return fail(`HTTP ${res.status}${challenge.error ? ` error=${challenge.error}` : ''}, not 403 insufficient_scope`);
    if (challenge.scope === undefined || !needed.some((s) => challenge.scope!.split(' ').includes(s)))
      return fail(`403 insufficient_scope, but its challenge names no needed scope (scope=${challenge.scope ?? 'absent'})`);
    return pass(`403 insufficient_scope, scope="${challenge.scope}"`);
  },
};
