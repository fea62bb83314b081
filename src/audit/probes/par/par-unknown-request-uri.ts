import { codeOf } from '../../outcomes.js';
import { parEndpointOf } from '../../par-endpoint.js';
import { refusal } from '../pkce/pkce-required.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 9126 section 4: a request_uri the server never issued gets no code. */
export const parUnknownRequestUriProbe: AuditProbe = {
  id: 'par-unknown-request-uri',
  title: 'a made-up request_uri gets no code',
  rfc: 'RFC 9126 §4',
  category: 'par',
  threat: 'RFC 9126 §7.1 (forged request references)',
  remedy: 'Refuse request_uri values the server did not issue, and expired ones.',
  needsFlow: true,
  async run(ctx) {
    parEndpointOf(ctx);
    const outcome = await ctx.walk(ctx.pushedAuthorizationUrl(ctx.config.clientId, 'urn:ietf:params:oauth:request_uri:oauthctl-audit-made-up'));
    if (codeOf(outcome) !== undefined) return fail('a made-up request_uri got a code');
    return pass(refusal(outcome) ?? 'refused');
  },
};
