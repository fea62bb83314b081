import { fail, pass, skip, type AuditProbe } from '../../types.js';
import { refusal } from '../pkce/pkce-required.js';

/** RFC 9396 section 5: authorization_details of a type the server does not know is refused (invalid_authorization_details). */
export const rarUnknownTypeProbe: AuditProbe = {
  id: 'rar-unknown-type',
  title: 'authorization_details of an unknown type is refused',
  rfc: 'RFC 9396 §5',
  category: 'fapi2',
  threat: 'RFC 9396 §12 (a grant the user was never shown, for a type the server does not understand)',
  remedy: 'Refuse authorization_details whose type is not one of authorization_details_types_supported, with invalid_authorization_details.',
  needsFlow: true,
  async run(ctx) {
    if (!Array.isArray(ctx.metadata?.authorization_details_types_supported)) return skip('the metadata has no authorization_details_types_supported (RFC 9396 section 10)');
    const details = JSON.stringify([{ type: 'https://oauthctl-audit.invalid/unknown-type' }]);
    const outcome = await ctx.authorize({ pkce: ctx.usesPkce ? ctx.freshPkce() : null, extraParams: { authorization_details: details } });
    const refused = refusal(outcome);
    if (refused === undefined) return fail('a code was issued for authorization_details of an unknown type');
    return pass(`refused: ${refused}`);
  },
};
