import { describeExchange, issuedTokens } from '../context.js';
import { fail, pass, type Probe } from '../types.js';

/**
 * RFC 6749 section 3.2: the client uses POST at the token endpoint, and section 2.3.1 keeps client
 * credentials out of the request URI. A code redeemed by GET with the grant in the query, or a secret
 * sent in the query string, must get no tokens (URLs end up in logs and histories).
 */
export const tokenPostOnlyProbe: Probe = {
  id: 'token-post-only',
  title: 'token endpoint refuses GET and credentials in the URL',
  rfc: 'RFC 6749 §3.2',
  needsFlow: true,
  async run(ctx) {
    const seen: string[] = [];
    const byGet = ctx.redemptionRequest(await ctx.obtainCode());
    const getUrl = new URL(byGet.url);
    for (const [k, v] of new URLSearchParams(byGet.body)) getUrl.searchParams.append(k, v);
    const headers = Object.fromEntries(Object.entries(byGet.headers).filter(([k]) => k !== 'content-type'));
    const get = await ctx.rawToken('authorization_code (GET)', getUrl.href, { method: 'GET', headers });
    if (issuedTokens(get)) return fail('a GET with the grant in the query string got tokens');
    seen.push(`GET refused (${describeExchange(get)})`);
    const secret = ctx.client.clientSecret;
    if (ctx.isPublicClient || secret === undefined) return pass(`${seen.join('; ')}; credentials in the URL not tried: ${ctx.config.clientId} is a public client`);
    const post = ctx.redemptionRequest(await ctx.obtainCode());
    const postUrl = new URL(post.url);
    postUrl.searchParams.set('client_id', ctx.config.clientId);
    postUrl.searchParams.set('client_secret', secret);
    const body = new URLSearchParams(post.body);
    body.delete('client_id');
    body.delete('client_secret');
    const postHeaders = Object.fromEntries(Object.entries(post.headers).filter(([k]) => k !== 'authorization'));
    const inUrl = await ctx.rawToken('authorization_code (secret in URL)', postUrl.href, { method: 'POST', headers: postHeaders, body: body.toString() });
    if (issuedTokens(inUrl)) return fail(`${seen.join('; ')}, but a POST with client_secret in the query string got tokens`);
    seen.push(`client_secret in the query string refused (${describeExchange(inUrl)})`);
    return pass(seen.join('; '));
  },
};
