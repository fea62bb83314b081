import { refusal } from '../pkce/pkce-required.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 6749 section 3.1.2 and RFC 9700 section 4.1: a javascript: redirect URI is never followed. */
export const authorizeRedirectUriJavascriptProbe: AuditProbe = {
  id: 'authorize-redirect-uri-javascript',
  title: 'a javascript: redirect_uri is refused',
  rfc: 'RFC 6749 §3.1.2',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.1 (insufficient redirect URI validation); RFC 6819 §4.4.1.7',
  remedy: 'Accept only registered redirect URIs, compared exactly; never a javascript: or data: URI.',
  async run(ctx) {
    const outcome = await ctx.authorize({ redirectUri: 'javascript:alert(document.domain)//', pkce: ctx.freshPkce() });
    if (outcome.kind === 'redirect' || outcome.kind === 'elsewhere') return fail(`the server redirected to ${outcome.url}`);
    return pass(refusal(outcome) ?? 'refused');
  },
};
