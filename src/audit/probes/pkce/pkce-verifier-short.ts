import { redeemWithVerifier } from '../../pkce-variants.js';
import type { AuditProbe } from '../../types.js';

/** RFC 7636 section 4.1: a code verifier has at least 43 characters. */
export const pkceVerifierShortProbe: AuditProbe = {
  id: 'pkce-verifier-short',
  title: 'a code verifier shorter than 43 characters is refused',
  rfc: 'RFC 7636 §4.1',
  category: 'pkce',
  threat: 'RFC 7636 §7.1 (guessable verifiers)',
  remedy: 'Refuse code verifiers outside 43 to 128 characters of the RFC 7636 alphabet.',
  needsFlow: true,
  run: (ctx) => redeemWithVerifier(ctx, 'a'.repeat(42)),
};
