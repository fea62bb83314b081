import { pollCiba, requestCiba } from '../../ciba.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/** CIBA Core 1.0 section 11: an auth_req_id is redeemed by the client it was issued to, no other (invalid_grant). */
export const cibaClientBindingProbe: AuditProbe = {
  id: 'ciba-client-binding',
  title: "another client polling a client's auth_req_id gets invalid_grant",
  rfc: 'CIBA Core §11',
  category: 'ciba',
  threat: 'RFC 6819 §5.2.4.4 (binding of grants to clients)',
  remedy: 'Check that the client of a token request with an auth_req_id is the one it was issued to; answer invalid_grant otherwise.',
  async run(ctx) {
    if (!ctx.secondClient) return skip('no second client (give --second-client-id and --second-client-secret)');
    const request = await requestCiba(ctx);
    const other = await pollCiba(ctx, request.authReqId, ctx.secondClient);
    if (issuedTokens(other)) return fail(`client ${ctx.secondClient.clientId} got tokens for an auth_req_id of ${ctx.config.clientId}`);
    if (other.error?.error === 'unauthorized_client' || other.error?.error === 'invalid_client') return skip(`the second client may not use CIBA: ${describeExchange(other)}`);
    if (other.error?.error === 'authorization_pending' || other.error?.error === 'slow_down') {
      return fail(`client ${ctx.secondClient.clientId} was answered ${other.error.error} for another client's auth_req_id: it would get the tokens once the user approves`);
    }
    if (other.error?.error === 'invalid_grant') return pass(`refused for ${ctx.secondClient.clientId}: ${describeExchange(other)}`);
    return warn(`refused for ${ctx.secondClient.clientId}, but not with invalid_grant (CIBA Core section 11): ${describeExchange(other)}`);
  },
};
