import { DpopSession } from '../../../client/flows/dpop.js';
import { sendWithAccessToken } from '../../../client/resources/resource-request.js';
import { formatScope, parseScope } from '../../../oauth/scope.js';
import { type AuditContext } from '../../context.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { dpopKeyFor, redeemWithProof } from '../../dpop-requests.js';
import { ProbeSkip } from '../../probe-errors.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * Where the bound token is presented: --api-url, else the userinfo endpoint when the token carries
 * openid (without it userinfo refuses any token, bound or not, and the refusal would prove nothing).
 */
function resourceFor(ctx: AuditContext, scopes: readonly string[]): string | undefined {
  if (ctx.apiUrl !== undefined) return ctx.apiUrl;
  return scopes.includes('openid') ? ctx.endpoint('userinfo_endpoint') : undefined;
}

function noResource(ctx: AuditContext, why: string): string {
  const give =
    ctx.endpoint('userinfo_endpoint') !== undefined
      ? 'give --api-url URL of a resource that accepts these tokens, or --scope openid for the userinfo endpoint'
      : 'give --api-url URL of a resource that accepts these tokens';
  return `needs a resource where only the binding can refuse the token: ${why}; ${give}`;
}

/** RFC 9449 section 7.2: a DPoP-bound access token presented as a Bearer token is refused by the resource. */
export const dpopBoundAsBearerProbe: AuditProbe = {
  id: 'dpop-bound-as-bearer',
  title: 'a DPoP-bound token is refused as Bearer',
  rfc: 'RFC 9449 §7.2',
  category: 'dpop',
  threat: 'RFC 9449 §7.2 (downgrade to bearer)',
  remedy: 'Refuse a DPoP-bound access token presented as a bearer token.',
  needsFlow: true,
  async run(ctx) {
    const key = await dpopKeyFor(ctx);
    if (resourceFor(ctx, ctx.config.scopes) === undefined)
      throw new ProbeSkip(noResource(ctx, ctx.config.scopes.includes('openid') ? 'no --api-url, and the metadata names no userinfo_endpoint' : 'no --api-url, and no openid in the scope'));
    const { exchange } = await redeemWithProof(ctx, key, await ctx.obtainCode());
    if (!issuedTokens(exchange)) return fail(`a token request with a valid DPoP proof was refused: ${describeExchange(exchange)}`);
    const tokens = exchange.json as { access_token: string; token_type?: string; scope?: unknown };
    if (tokens.token_type?.toLowerCase() !== 'dpop') return skip(`the server issued token_type ${JSON.stringify(tokens.token_type)}, not a DPoP-bound token, for this client`);
    // RFC 6749 section 5.1: scope is left out of the response when it is the one requested.
    const granted = typeof tokens.scope === 'string' ? parseScope(tokens.scope) : ctx.config.scopes;
    const resource = resourceFor(ctx, granted);
    if (resource === undefined) return skip(noResource(ctx, `the server granted scope "${formatScope(granted)}", without openid`));
    const asBearer = await ctx.http.request(resource, { headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } });
    if (asBearer.status < 400) return fail(`${resource} answered HTTP ${asBearer.status} to the DPoP-bound token sent as Bearer, without a proof`);
    const asDpop = await sendWithAccessToken(ctx.http, resource, { method: 'GET', headers: { accept: 'application/json' } }, tokens.access_token, new DpopSession(key));
    if (asDpop.status >= 400) return warn(`refused as Bearer (HTTP ${asBearer.status}), but also refused with its proof (HTTP ${asDpop.status}): nothing shows the token works at ${resource}`);
    return pass(`${resource}: HTTP ${asBearer.status} as Bearer; HTTP ${asDpop.status} with Authorization: DPoP and a proof`);
  },
};
