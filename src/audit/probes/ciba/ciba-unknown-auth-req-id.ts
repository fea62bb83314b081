import { cibaEndpointOf, pollCiba } from '../../ciba.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/** CIBA Core 1.0 section 11: an auth_req_id the server never issued is invalid_grant. */
export const cibaUnknownAuthReqIdProbe: AuditProbe = {
  id: 'ciba-unknown-auth-req-id',
  title: 'a made-up auth_req_id gets no tokens (invalid_grant)',
  rfc: 'CIBA Core §11',
  category: 'ciba',
  threat: 'OpenID Connect CIBA Core §11 (a grant the server never issued)',
  remedy: 'Refuse an unknown auth_req_id at the token endpoint with invalid_grant.',
  async run(ctx) {
    cibaEndpointOf(ctx);
    const poll = await pollCiba(ctx, 'oauthctl-audit-made-up-auth-req-id');
    if (issuedTokens(poll)) return fail('a made-up auth_req_id got tokens');
    if (poll.status >= 500) return fail(`the server failed: ${describeExchange(poll)}`);
    if (poll.error?.error === 'invalid_grant') return pass(describeExchange(poll));
    if (poll.error?.error === 'unauthorized_client' || poll.error?.error === 'invalid_client') return skip(`${ctx.config.clientId} may not use the CIBA grant: ${describeExchange(poll)}`);
    return warn(`refused, but not with invalid_grant (CIBA Core section 11): ${describeExchange(poll)}`);
  },
};
