import type { HttpResponse } from '../../../client/http/http.js';
import { type AuditContext } from '../../context.js';
import { mustRefuse, present, requiredScopes, resourceUrl, workingToken } from '../../protected-resource.js';
import { ProbeSkip } from '../../probe-errors.js';
import type { AuditProbe } from '../../types.js';

/** How far ahead the token's nbf is put: beyond any clock leeway a resource allows. */
const AHEAD_SECONDS = 3600;

/** A member of a JSON answer, undefined when the answer is no JSON object (any server may be asked). */
function member(res: HttpResponse, name: string): unknown {
  if (res.status !== 200) return undefined;
  try {
    const body = res.json();
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A token the resource trusts that is not valid yet. Only its authorization server can sign one; the
 * audit asks serve-mock's admin API (docs/admin-api.md) for it, where the server is the mock and its
 * admin API answers (GET /_mock/clock, a read with no effect, tells), and gives up once, saying why, elsewhere.
 */
async function notYetValidToken(ctx: AuditContext): Promise<{ token: string; nbf: number }> {
  const base = (ctx.issuer ?? ctx.serverOrigin).replace(/\/$/, '');
  const clock = await ctx.http.request(`${base}/_mock/clock`, { headers: { accept: 'application/json' } });
  const now = member(clock, 'now');
  if (typeof now !== 'number')
    throw new ProbeSkip(
      `not tested: only the authorization server can sign a token whose nbf is in the future, and it has no serve-mock admin API to ask for one (GET ${base}/_mock/clock: HTTP ${clock.status})`,
    );
  const nbf = Math.floor(now) + AHEAD_SECONDS;
  const scope = (await requiredScopes(ctx)).join(' ');
  const issued = await ctx.http.request(`${base}/_mock/tokens`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ sub: 'oauthctl-audit', client_id: ctx.config.clientId, ...(scope && { scope }), claims: { nbf, aud: resourceUrl(ctx) } }),
  });
  const token = member(issued, 'access_token');
  if (typeof token !== 'string') throw new ProbeSkip(`not tested: the serve-mock admin API issued no token with a future nbf (POST ${base}/_mock/tokens: HTTP ${issued.status})`);
  return { token, nbf };
}

/** RFC 7519 section 4.1.5 and RFC 9068 section 4: a token used before its nbf is refused. */
export const resourceNotYetValidProbe: AuditProbe = {
  id: 'resource-not-yet-valid',
  title: 'a token not valid yet (nbf an hour ahead) is refused',
  rfc: 'RFC 7519 §4.1.5',
  category: 'protected-resource',
  threat: 'RFC 7519 §4.1.5 (a token used outside its validity window)',
  remedy: 'refuse a JWT whose nbf is later than now plus a small clock leeway (JWT libraries check it unless told not to)',
  needsFlow: true,
  async run(ctx) {
    await workingToken(ctx);
    const { token } = await notYetValidToken(ctx);
    return mustRefuse(await present(ctx, token), `a token whose nbf is ${AHEAD_SECONDS / 60} minutes ahead`);
  },
};
