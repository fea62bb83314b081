import { rsaClientKey } from '../../fapi2-algorithms.js';
import { signCompact } from '../../forged-jws.js';
import { requestObjectUrl } from '../../jwt-acceptance.js';
import { codeOf } from '../../outcomes.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';
import { refusal } from '../pkce/pkce-required.js';

/**
 * FAPI 2.0 Security Profile section 5.4.1: a request object (RFC 9101 section 4) signed RS256 with the
 * client's own RSA key, otherwise right, gets no code, where the server takes request objects.
 */
export const fapi2RequestObjectRs256Probe: AuditProbe = {
  id: 'fapi2-request-object-rs256',
  title: "a request object signed RS256 with the client's key is refused",
  rfc: 'FAPI 2.0 SP §5.4.1',
  category: 'fapi2',
  threat: 'RSASSA-PKCS1-v1_5 (RS256) accepted where FAPI 2.0 allows only PS256, ES256 and EdDSA',
  remedy: 'Verify request objects with PS256, ES256 and EdDSA only (request_object_signing_alg_values_supported).',
  needsFlow: false,
  async run(ctx) {
    const m = ctx.metadata;
    if (m?.request_parameter_supported !== true && !Array.isArray(m?.request_object_signing_alg_values_supported))
      return skip('the metadata does not announce request objects (request_parameter_supported, request_object_signing_alg_values_supported)');
    const key = rsaClientKey(ctx);
    const header = { alg: 'RS256', typ: 'oauth-authz-req+jwt', ...(key.kid !== undefined && { kid: key.kid }) };
    // Pushed when the audit pushes its requests (RFC 9126 section 3): the PAR endpoint checks the request object then.
    const outcome = await ctx.authorize({ rawUrl: requestObjectUrl(ctx, (claims) => signCompact(header, claims, key.key, 'RS256')) });
    if (codeOf(outcome) !== undefined) return fail('a request object signed RS256 got a code');
    return pass(`refused: ${refusal(outcome) ?? 'no code'}`);
  },
};
