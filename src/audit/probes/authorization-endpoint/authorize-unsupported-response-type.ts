import { codeOf } from '../../outcomes.js';
import { refusal } from '../pkce/pkce-required.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 6749 section 4.1.2.1: a response type the server does not support is refused with unsupported_response_type. */
export const authorizeUnsupportedResponseTypeProbe: AuditProbe = {
  id: 'authorize-unsupported-response-type',
  title: 'an unknown response_type is refused with unsupported_response_type',
  rfc: 'RFC 6749 §4.1.2.1',
  category: 'authorization-endpoint',
  threat: 'RFC 6749 §3.1.1 (a response the client did not ask for)',
  remedy: 'Answer unknown response types with error=unsupported_response_type and issue nothing.',
  needsFlow: true,
  async run(ctx) {
    const outcome = await ctx.authorize({ responseType: 'oauthctl_audit_unknown', pkce: ctx.usesPkce ? ctx.freshPkce() : null });
    if (codeOf(outcome) !== undefined || (outcome.kind === 'redirect' && outcome.params.access_token)) return fail('an unknown response_type got a code or a token');
    if (outcome.kind === 'redirect' && outcome.params.error !== 'unsupported_response_type') return warn(`refused with error=${outcome.params.error ?? '(none)'}, not unsupported_response_type`);
    return pass(refusal(outcome) ?? 'refused');
  },
};
