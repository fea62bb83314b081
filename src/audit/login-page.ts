import type { HttpResponse } from '../client/http/http.js';
import type { AuditContext } from './context.js';
import { ProbeSkip } from './probe-errors.js';

const MAX_HOPS = 5;

/**
 * The responses on the way from an authorization request to the first page (the login page), following
 * redirects on the server's own origin only; a skip when the endpoint is not https.
 */
export async function httpsPagesOf(ctx: AuditContext): Promise<HttpResponse[]> {
  if (new URL(ctx.config.authorizationEndpoint).protocol !== 'https:') throw new ProbeSkip('the authorization endpoint is not https');
  let url = ctx.authorizationUrl({ pkce: ctx.freshPkce() });
  const seen: HttpResponse[] = [];
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const res = await ctx.http.request(url);
    seen.push(res);
    const location = res.headers.location;
    if (res.status < 300 || res.status >= 400 || location === undefined) return seen;
    const next = new URL(location, url);
    if (next.origin !== ctx.serverOrigin) return seen;
    url = next.href;
  }
  return seen;
}
