import { freshIdToken } from '../../id-token-response.js';
import { listOf } from '../../metadata-document.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** OpenID Connect Discovery section 3: ID tokens are signed with an algorithm of id_token_signing_alg_values_supported. */
export const idTokenAlgAnnouncedProbe: AuditProbe = {
  id: 'id-token-alg-announced',
  title: 'the ID token is signed with an announced algorithm',
  rfc: 'OIDC Discovery §3',
  category: 'id-token',
  threat: 'RFC 8725 §3.1 (algorithm verification)',
  remedy: 'Sign ID tokens with an algorithm listed in id_token_signing_alg_values_supported (not none).',
  needsFlow: true,
  async run(ctx) {
    const { idToken } = await freshIdToken(ctx);
    const alg = String(idToken.header.alg);
    if (alg === 'none') return fail('the ID token is unsigned (alg none)');
    const announced = ctx.metadata ? listOf(ctx.metadata as Record<string, unknown>, 'id_token_signing_alg_values_supported') : undefined;
    if (announced === undefined) return warn(`${alg}; the metadata lists no id_token_signing_alg_values_supported to compare with`);
    if (!announced.includes(alg)) return fail(`${alg} is not in id_token_signing_alg_values_supported (${announced.join(', ')})`);
    return pass(`${alg}, announced`);
  },
};
