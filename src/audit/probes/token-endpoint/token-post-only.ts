import { type AuditContext } from '../../context.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { usesClientAssertion } from '../../../oauth/token-request.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/**
 * RFC 6749 section 3.2: the client uses POST at the token endpoint, and section 2.3.1 keeps client
 * credentials out of the request URI. A code redeemed by GET with the grant in the query, or a secret
 * (or a client assertion) sent in the query string, must get no tokens (URLs end up in logs and histories).
 */
export const tokenPostOnlyProbe: AuditProbe = {
  id: 'token-post-only',
  title: 'token endpoint refuses GET and credentials in the URL',
  rfc: 'RFC 6749 §3.2',
  category: 'token-endpoint',
  threat: 'RFC 6819 §5.4.2 (credentials in URLs leak through logs)',
  remedy: 'Answer only POST at the token endpoint and never read credentials from the query string.',
  needsFlow: true,
  async run(ctx) {
    const seen: string[] = [];
    const byGet = await ctx.redemptionRequest(await ctx.obtainCode());
    const getUrl = new URL(byGet.url);
    for (const [k, v] of new URLSearchParams(byGet.body)) getUrl.searchParams.append(k, v);
    const headers = Object.fromEntries(Object.entries(byGet.headers).filter(([k]) => k !== 'content-type'));
    const get = await ctx.rawToken('authorization_code (GET)', getUrl.href, { method: 'GET', headers });
    if (issuedTokens(get)) return fail('a GET with the grant in the query string got tokens');
    seen.push(`GET refused (${describeExchange(get)})`);
    const credentials = await credentialsInUrl(ctx);
    if (typeof credentials === 'string') return pass(`${seen.join('; ')}; credentials in the URL not tried: ${credentials}`);
    const { what, url, headers: postHeaders, body } = credentials;
    const inUrl = await ctx.rawToken(`authorization_code (${what} in URL)`, url, { method: 'POST', headers: postHeaders, body });
    if (issuedTokens(inUrl)) return fail(`${seen.join('; ')}, but a POST with ${what} in the query string got tokens`);
    seen.push(`${what} in the query string refused (${describeExchange(inUrl)})`);
    return pass(seen.join('; '));
  },
};

/** The credentials that name the client in a token request's body; a secret sent by Basic is moved there too. */
const CREDENTIALS = ['client_id', 'client_secret', 'client_assertion_type', 'client_assertion'];

/**
 * The redemption with the client's credentials (its secret, or its client assertion, RFC 7523 section 2.2)
 * in the query string instead of the body or the Authorization header; or why there are none to move.
 */
async function credentialsInUrl(ctx: AuditContext): Promise<{ what: string; url: string; headers: Record<string, string>; body: string } | string> {
  const { authMethod, clientSecret } = ctx.client;
  const jwt = usesClientAssertion(authMethod);
  if (!jwt && clientSecret === undefined) return authMethod === 'none' ? `${ctx.config.clientId} is a public client` : `${ctx.config.clientId} authenticates with ${authMethod}, no secret`;
  const req = await ctx.redemptionRequest(await ctx.obtainCode());
  const url = new URL(req.url);
  const body = new URLSearchParams(req.body);
  if (authMethod === 'client_secret_basic' && clientSecret !== undefined) {
    body.set('client_id', ctx.config.clientId);
    body.set('client_secret', clientSecret);
  }
  for (const name of CREDENTIALS) {
    const value = body.get(name);
    if (value === null) continue;
    url.searchParams.set(name, value);
    body.delete(name);
  }
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'authorization'));
  return { what: jwt ? 'client_assertion' : 'client_secret', url: url.href, headers, body: body.toString() };
}
