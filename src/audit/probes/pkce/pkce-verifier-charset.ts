import { redeemWithVerifier } from '../../pkce-variants.js';
import type { AuditProbe } from '../../types.js';

/** RFC 7636 section 4.1: a code verifier uses [A-Za-z0-9-._~] only. */
export const pkceVerifierCharsetProbe: AuditProbe = {
  id: 'pkce-verifier-charset',
  title: 'a code verifier with characters outside its alphabet is refused',
  rfc: 'RFC 7636 §4.1',
  category: 'pkce',
  threat: 'RFC 7636 §7.1 (verifiers not made by the specified generator)',
  remedy: 'Refuse code verifiers with characters other than A-Z, a-z, 0-9, "-", ".", "_", "~".',
  needsFlow: true,
  run: (ctx) => redeemWithVerifier(ctx, `${'b'.repeat(40)}+/ <`),
};
