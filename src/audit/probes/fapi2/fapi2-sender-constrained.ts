import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** FAPI 2.0 Security Profile section 5.3.2.1: sender-constrained access tokens only (DPoP or mTLS), never a bearer token. */
export const fapi2SenderConstrainedProbe: AuditProbe = {
  id: 'fapi2-sender-constrained',
  title: 'no bearer token for a token request without a DPoP proof',
  rfc: 'FAPI 2.0 SP §5.3.2.1',
  category: 'fapi2',
  threat: 'RFC 9700 §4.10.1 (a leaked bearer token works for whoever holds it)',
  remedy: 'Issue access tokens bound to a DPoP key or the client certificate only; refuse a token request that has neither.',
  needsFlow: true,
  async run(ctx) {
    if (ctx.config.tlsClientCertificate !== undefined) return skip('the client authenticates with a certificate, which binds its tokens (mTLS)');
    const exchange = await ctx.redeem(await ctx.obtainCode(), {}, undefined, { withoutDpop: true });
    if (!issuedTokens(exchange)) return pass(`a token request without a DPoP proof was refused: ${describeExchange(exchange)}`);
    const o = exchange.json as Record<string, unknown>;
    return fail(`a token request without a DPoP proof got an access token (token_type ${JSON.stringify(o.token_type)}): a bearer token`);
  },
};
