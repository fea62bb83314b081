import { FAPI2_AUTH_METHODS, fapi2MetadataGaps } from '../../../oauth/fapi2.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/**
 * FAPI 2.0 Security Profile sections 5.3.2.1 and 5.3.2.2, as the metadata says them: PAR required,
 * PKCE S256 only, iss in the response, a sender constraint, and no client authentication but
 * private_key_jwt and mTLS.
 */
export const fapi2MetadataProbe: AuditProbe = {
  id: 'fapi2-metadata',
  title: 'the metadata announces the FAPI 2.0 server rules',
  rfc: 'FAPI 2.0 SP §5.3.2.1, §5.3.2.2',
  category: 'fapi2',
  threat: 'RFC 8414 §2 (a client that cannot tell what the server enforces falls back to weaker ways)',
  remedy: 'Require PAR, announce S256 only, iss, DPoP or mTLS-bound tokens, and only private_key_jwt and mTLS client authentication.',
  needsFlow: false,
  async run(ctx) {
    const m = ctx.metadata;
    if (!m) return skip('no server metadata was found');
    const gaps = fapi2MetadataGaps(m, { mtls: ctx.config.tlsClientCertificate !== undefined });
    if (m.require_pushed_authorization_requests !== true) gaps.push('require_pushed_authorization_requests true (5.3.2.2)');
    const methods = Array.isArray(m.token_endpoint_auth_methods_supported) ? m.token_endpoint_auth_methods_supported : [];
    const others = methods.filter((x) => !FAPI2_AUTH_METHODS.includes(x));
    if (others.length > 0) gaps.push(`no client authentication but private_key_jwt and mTLS (it also lists ${others.join(', ')}; 5.3.2.1)`);
    if ((m.code_challenge_methods_supported ?? []).includes('plain')) gaps.push('no PKCE method plain (5.3.2.2)');
    if (gaps.length > 0) return fail(`the metadata lacks: ${gaps.join('; ')}`);
    return pass('PAR required, S256, iss, a sender constraint and private_key_jwt or mTLS only');
  },
};
