import { fail, pass, type AuditProbe } from '../../types.js';
import { refusal } from '../pkce/pkce-required.js';

/** FAPI 2.0 Security Profile section 5.3.2.2: PKCE with S256 for every client, confidential ones too. */
export const fapi2PkceRequiredProbe: AuditProbe = {
  id: 'fapi2-pkce-required',
  title: 'an authorization request without PKCE is refused, whatever the client',
  rfc: 'FAPI 2.0 SP §5.3.2.2',
  category: 'fapi2',
  threat: 'RFC 9700 §4.5 (authorization code injection)',
  remedy: 'Refuse every authorization request without code_challenge and code_challenge_method=S256.',
  needsFlow: true,
  async run(ctx) {
    const outcome = await ctx.authorize({ pkce: null });
    const refused = refusal(outcome);
    if (refused) return pass(`a request without code_challenge was refused: ${refused}`);
    return fail(`${ctx.config.clientId} got a code without code_challenge`);
  },
};
