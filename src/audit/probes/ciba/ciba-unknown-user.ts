import { cibaScope, sendBackchannelRequest } from '../../ciba.js';
import { describeExchange } from '../../exchanges.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';
import { randomToken } from '../../../oauth/random.js';

/** CIBA Core 1.0 sections 7.2 and 13: a hint that names no user is refused with unknown_user_id. */
export const cibaUnknownUserProbe: AuditProbe = {
  id: 'ciba-unknown-user',
  title: 'a request for a user who does not exist is refused (unknown_user_id)',
  rfc: 'CIBA Core §13',
  category: 'ciba',
  threat: 'OpenID Connect CIBA Core §7.2 (the OP must validate the hint and determine the user)',
  remedy: 'Answer unknown_user_id when login_hint names no user (or acknowledge and let the request expire, as a deliberate defence against enumeration).',
  async run(ctx) {
    const ack = await sendBackchannelRequest(ctx, { scope: cibaScope(ctx), login_hint: `oauthctl-audit-no-such-user-${randomToken(64)}` });
    if (ack.status >= 500) return fail(`the server failed: ${describeExchange(ack)}`);
    if (ack.error?.error === 'unknown_user_id') return pass(describeExchange(ack));
    if (ack.error?.error === 'unauthorized_client' || ack.error?.error === 'invalid_client')
      return skip(`the server takes no backchannel authentication request from ${ctx.config.clientId}: ${ack.error.error}`);
    if (ack.error) return warn(`refused, but not with unknown_user_id (CIBA Core section 13): ${describeExchange(ack)}`);
    return warn(`acknowledged a request for a user who does not exist (${describeExchange(ack)}): the client cannot tell a wrong hint from a user who does not answer`);
  },
};
