import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 9207 section 2: the redirect names the issuer, so a client can tell servers apart (mix-up attacks). */
export const issProbe: AuditProbe = {
  id: 'iss',
  title: 'iss in the redirect matches the issuer',
  rfc: 'RFC 9207 §2',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.4 (mix-up)',
  remedy: 'Send iss, the exact issuer, in every authorization response (RFC 9207).',
  needsFlow: true,
  async run(ctx) {
    const outcome = await ctx.authorize({ pkce: ctx.usesPkce ? ctx.freshPkce() : null });
    if (outcome.kind !== 'redirect') return fail('no redirect to check');
    const iss = outcome.params.iss;
    const advertised = ctx.metadata?.authorization_response_iss_parameter_supported === true;
    if (iss === undefined) {
      return advertised
        ? fail('the metadata says authorization_response_iss_parameter_supported, but the redirect has no iss')
        : warn('the redirect has no iss (RFC 9207 recommends it against mix-up attacks)');
    }
    if (ctx.issuer === undefined) return warn(`iss=${iss} is present, but the issuer is unknown to compare it with (give --issuer)`);
    if (iss !== ctx.issuer) return fail(`iss=${JSON.stringify(iss)} is not the issuer ${JSON.stringify(ctx.issuer)}`);
    return pass(`iss=${iss}${advertised ? ', as the metadata announces' : ''}`);
  },
};
