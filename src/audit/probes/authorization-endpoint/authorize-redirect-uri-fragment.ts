import { codeOf } from '../../outcomes.js';
import { refusal } from '../pkce/pkce-required.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 6749 section 3.1.2: a redirect URI MUST NOT include a fragment. */
export const authorizeRedirectUriFragmentProbe: AuditProbe = {
  id: 'authorize-redirect-uri-fragment',
  title: 'a redirect_uri with a fragment is refused',
  rfc: 'RFC 6749 §3.1.2',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.1 (insufficient redirect URI validation)',
  remedy: 'Refuse redirect URIs with a fragment and compare the rest exactly.',
  needsFlow: true,
  async run(ctx) {
    const outcome = await ctx.authorize({ redirectUri: `${ctx.redirectUri}#oauthctl-audit`, pkce: ctx.usesPkce ? ctx.freshPkce() : null });
    if (codeOf(outcome) !== undefined) return fail('a code was issued to a redirect URI with a fragment');
    return pass(refusal(outcome) ?? 'refused');
  },
};
