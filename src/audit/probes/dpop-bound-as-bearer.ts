import { DpopSession } from '../../client/dpop.js';
import { sendWithAccessToken } from '../../client/resource-request.js';
import { describeExchange, issuedTokens } from '../context.js';
import { dpopKeyFor, redeemWithProof } from '../dpop-requests.js';
import { ProbeSkip } from '../probe-errors.js';
import { fail, pass, skip, warn, type Probe } from '../types.js';

/** RFC 9449 section 7.2: a DPoP-bound access token presented as a Bearer token is refused by the resource. */
export const dpopBoundAsBearerProbe: Probe = {
  id: 'dpop-bound-as-bearer',
  title: 'a DPoP-bound token is refused as Bearer',
  rfc: 'RFC 9449 §7.2',
  needsFlow: true,
  async run(ctx) {
    const key = await dpopKeyFor(ctx);
    const userinfo = ctx.config.endpoints.userinfo_endpoint ?? ctx.metadata?.userinfo_endpoint;
    if (typeof userinfo !== 'string') throw new ProbeSkip('needs a protected resource: the metadata names no userinfo_endpoint');
    const { exchange } = await redeemWithProof(ctx, key, await ctx.obtainCode());
    if (!issuedTokens(exchange)) return fail(`a token request with a valid DPoP proof was refused: ${describeExchange(exchange)}`);
    const tokens = exchange.json as { access_token: string; token_type?: string };
    if (tokens.token_type?.toLowerCase() !== 'dpop') return skip(`the server issued token_type ${JSON.stringify(tokens.token_type)}, not a DPoP-bound token, for this client`);
    const asBearer = await ctx.http.request(userinfo, { headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } });
    if (asBearer.status < 400) return fail(`the userinfo endpoint answered HTTP ${asBearer.status} to the DPoP-bound token sent as Bearer, without a proof`);
    const asDpop = await sendWithAccessToken(ctx.http, userinfo, { method: 'GET', headers: { accept: 'application/json' } }, tokens.access_token, new DpopSession(key));
    if (asDpop.status >= 400) return warn(`refused as Bearer (HTTP ${asBearer.status}), but also refused with its proof (HTTP ${asDpop.status}): nothing shows the token works at ${userinfo}`);
    return pass(`HTTP ${asBearer.status} as Bearer; HTTP ${asDpop.status} with Authorization: DPoP and a proof`);
  },
};
