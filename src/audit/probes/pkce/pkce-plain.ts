import { pass, warn, type AuditProbe } from '../../types.js';
import { refusal } from './pkce-required.js';

/** RFC 9700 section 2.1.1: clients use S256; a server that still accepts plain lets a leaked challenge act as the verifier. */
export const pkcePlainProbe: AuditProbe = {
  id: 'pkce-plain',
  title: 'PKCE method plain refused',
  rfc: 'RFC 9700 §2.1.1',
  category: 'pkce',
  threat: 'RFC 9700 §2.1.1; RFC 7636 §7.2',
  remedy: 'Accept only code_challenge_method S256.',
  needsFlow: true,
  async run(ctx) {
    const methods = ctx.metadata?.code_challenge_methods_supported;
    const outcome = await ctx.authorize({ pkce: ctx.freshPkce('plain') });
    const refused = refusal(outcome);
    if (refused) return pass(`code_challenge_method=plain refused: ${refused}`);
    return warn(`a code was issued for code_challenge_method=plain${methods ? ` (metadata lists ${methods.join(', ')})` : ''}`);
  },
};
