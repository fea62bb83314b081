import { ALLOWED, disallowed } from '../../fapi2-algorithms.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/**
 * FAPI 2.0 Security Profile section 5.4.1: JWTs are signed and accepted with PS256, ES256 or EdDSA
 * only; a metadata list of signing algorithms (RFC 8414 section 2, OpenID Connect Discovery section 3,
 * RFC 9449 section 5.1, JARM section 3) that names another announces that the server takes it.
 */
export const fapi2MetadataAlgsProbe: AuditProbe = {
  id: 'fapi2-metadata-algs',
  title: 'the metadata announces only PS256, ES256 and EdDSA as signing algorithms',
  rfc: 'FAPI 2.0 SP §5.4.1',
  category: 'fapi2',
  threat: 'RFC 8725 §2.1 (weak or confused algorithms); RSASSA-PKCS1-v1_5 (RS256), which FAPI 2.0 no longer allows',
  remedy: 'Announce and accept only PS256, ES256 and EdDSA (Ed25519) in every *_signing_alg_values_supported list.',
  needsFlow: false,
  async run(ctx) {
    const m = ctx.metadata;
    if (!m) return skip('no server metadata was found');
    const lists = Object.entries(m).filter(([name, value]) => name.endsWith('_signing_alg_values_supported') && Array.isArray(value)) as [string, unknown[]][];
    if (lists.length === 0) return fail('the metadata announces no *_signing_alg_values_supported list: a client cannot tell which algorithms it uses');
    const others = lists.flatMap(([name, algs]) => {
      const bad = algs.flatMap((a) => disallowed(a) ?? []);
      return bad.length > 0 ? [`${name} lists ${bad.join(', ')}`] : [];
    });
    if (others.length > 0) return fail(`${others.join('; ')} (allowed: ${ALLOWED})`);
    return pass(`${lists.map(([name]) => name).join(', ')}: only ${ALLOWED}`);
  },
};
