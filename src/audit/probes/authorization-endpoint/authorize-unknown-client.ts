import { refusal } from '../pkce/pkce-required.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 6749 section 4.1.2.1: with an unknown client_id the server MUST NOT redirect; it tells the user. */
export const authorizeUnknownClientProbe: AuditProbe = {
  id: 'authorize-unknown-client',
  title: 'an unknown client_id gets an error page, not a redirect',
  rfc: 'RFC 6749 §4.1.2.1',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.11.2 (the authorization server as open redirector)',
  remedy: 'Show an error page for an unknown client; never redirect to the redirect_uri it names.',
  async run(ctx) {
    const outcome = await ctx.authorize({ clientId: 'oauthctl-audit-unknown-client', pkce: ctx.freshPkce() });
    if (outcome.kind === 'redirect') return fail(`the server redirected to ${outcome.url} for a client it cannot know`);
    if (outcome.kind === 'elsewhere') return fail(`the server sent the browser to ${outcome.url}`);
    return pass(refusal(outcome) ?? 'refused');
  },
};
