import { refusal } from '../pkce/pkce-required.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 6749 section 3.1: the authorization server MUST ignore unrecognized request parameters. */
export const unknownParamsProbe: AuditProbe = {
  id: 'unknown-params',
  title: 'unknown authorization parameters ignored',
  rfc: 'RFC 6749 §3.1',
  category: 'authorization-endpoint',
  threat: 'RFC 6749 §3.1',
  remedy: 'Ignore authorization parameters you do not know instead of failing the request.',
  needsFlow: true,
  async run(ctx) {
    const outcome = await ctx.authorize({ pkce: ctx.usesPkce ? ctx.freshPkce() : null, extraParams: { oauthctl_audit_unknown: 'ignore-me' } });
    const refused = refusal(outcome);
    if (refused) return fail(`a request with the unknown parameter oauthctl_audit_unknown was refused: ${refused}`);
    return pass('a code was issued for a request with the unknown parameter oauthctl_audit_unknown');
  },
};
