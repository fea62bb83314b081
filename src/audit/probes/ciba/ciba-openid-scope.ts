import { accountOf } from '../../account.js';
import { cibaEndpointOf, sendBackchannelRequest } from '../../ciba.js';
import { describeExchange } from '../../exchanges.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** CIBA Core 1.0 section 7.1: the scope of a backchannel authentication request must include openid. */
export const cibaOpenidScopeProbe: AuditProbe = {
  id: 'ciba-openid-scope',
  title: 'a backchannel authentication request without openid is refused',
  rfc: 'CIBA Core §7.1',
  category: 'ciba',
  threat: 'OpenID Connect CIBA Core §7.1 (an authentication without an ID token: the client cannot verify who approved)',
  remedy: 'Refuse a backchannel authentication request whose scope lacks openid (invalid_scope or invalid_request).',
  async run(ctx) {
    cibaEndpointOf(ctx);
    const scopes = ctx.config.scopes.filter((s) => s !== 'openid');
    if (scopes.length === 0) return skip('the audit has no scope besides openid to ask for (give --scope)');
    const ack = await sendBackchannelRequest(ctx, { scope: scopes.join(' '), login_hint: accountOf(ctx).username });
    if (ack.status >= 500) return fail(`the server failed: ${describeExchange(ack)}`);
    if (ack.error?.error === 'unauthorized_client' || ack.error?.error === 'invalid_client')
      return skip(`the server takes no backchannel authentication request from ${ctx.config.clientId}: ${ack.error.error}`);
    if (ack.error) return pass(describeExchange(ack));
    return fail(`acknowledged a request for scope ${JSON.stringify(scopes.join(' '))} without openid: ${describeExchange(ack)}`);
  },
};
