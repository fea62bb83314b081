import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 9207 section 2: iss is in error responses too, where the server announces it. */
export const authorizeErrorIssProbe: AuditProbe = {
  id: 'authorize-error-iss',
  title: 'an error redirect carries iss',
  rfc: 'RFC 9207 §2',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.4 (mix-up through error responses)',
  remedy: 'Put iss, the issuer, in error redirects as in successful ones.',
  needsFlow: true,
  async run(ctx) {
    if (ctx.metadata?.authorization_response_iss_parameter_supported !== true) return skip('the metadata does not announce authorization_response_iss_parameter_supported');
    const outcome = await ctx.authorize({ responseType: 'oauthctl_audit_unknown', pkce: ctx.usesPkce ? ctx.freshPkce() : null });
    if (outcome.kind !== 'redirect' || outcome.params.error === undefined) return skip(`no error redirect to look at (${outcome.kind})`);
    if (outcome.params.iss === undefined) return fail(`error=${outcome.params.error} came back without iss`);
    if (ctx.issuer !== undefined && outcome.params.iss !== ctx.issuer) return fail(`iss=${JSON.stringify(outcome.params.iss)} is not the issuer ${ctx.issuer}`);
    return pass(`error=${outcome.params.error} with iss`);
  },
};
