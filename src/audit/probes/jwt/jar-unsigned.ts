import { UnsecuredJWT } from 'jose/jwt/unsecured';
import { requestObjectUrl } from '../../jwt-acceptance.js';
import { codeOf } from '../../outcomes.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';
import { refusal } from '../pkce/pkce-required.js';

/**
 * RFC 9101 section 10.5 (require_signed_request_object) and section 6.1: where signing is required, an
 * unsigned request object is refused (a failure otherwise); where only the announced algorithms leave
 * `none` out, taking one is a warning: the metadata is inconsistent, but section 10.5 does not bind the server.
 */
export const jarUnsignedProbe: AuditProbe = {
  id: 'jar-unsigned',
  title: 'an unsigned request object is refused',
  rfc: 'RFC 9101 §10.5',
  category: 'jwt',
  threat: 'RFC 9101 §10.5; RFC 8725 §3.1 (alg none)',
  remedy: 'Refuse request objects with alg none (and announce require_signed_request_object).',
  needsFlow: false,
  async run(ctx) {
    const m = ctx.metadata;
    const algs = m?.request_object_signing_alg_values_supported;
    if (m?.request_parameter_supported !== true && !Array.isArray(algs))
      return skip('the metadata does not advertise request objects (request_parameter_supported, request_object_signing_alg_values_supported)');
    const required = m?.require_signed_request_object === true;
    if (!required && Array.isArray(algs) && algs.includes('none')) return skip('the metadata lists alg none for request objects and does not require signed ones');
    // Pushed when the audit pushes its requests (RFC 9126 section 3): the PAR endpoint checks the request object then.
    const outcome = await ctx.authorize({ rawUrl: requestObjectUrl(ctx, (claims) => new UnsecuredJWT(claims).encode()) });
    const why = required ? 'require_signed_request_object is true' : `alg none is not in ${JSON.stringify(algs)}`;
    if (codeOf(outcome) !== undefined) {
      if (required) return fail(`an unsigned (alg none) request object got a code although ${why}`);
      // Section 10.5 binds only a server that requires signed request objects; this one announces a list without none, then takes none.
      return warn(`an unsigned (alg none) request object got a code although ${why} (the metadata does not say require_signed_request_object, but it is inconsistent)`);
    }
    return pass(`alg none refused (${why}): ${refusal(outcome)}`);
  },
};
