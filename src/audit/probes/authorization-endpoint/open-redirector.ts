import { fail, pass, skip, type AuditProbe } from '../../types.js';

const UNREGISTERED = 'https://oauthctl-audit.invalid/open-redirect';

/**
 * RFC 9700 section 4.11.2 (and RFC 6749 section 4.1.2.1): an authorization request of a valid client
 * with an unregistered redirect URI and an invalid parameter gets an error page; redirecting the error
 * there would make the server an open redirector.
 */
export const openRedirectorProbe: AuditProbe = {
  id: 'open-redirector',
  title: 'no error redirect to an unregistered URI',
  rfc: 'RFC 9700 §4.11.2',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.11.2 (authorization server as open redirector)',
  remedy: 'Show an error page, never a redirect, when the client or the redirect URI is not valid.',
  needsFlow: true,
  async run(ctx) {
    const outcome = await ctx.authorize({ redirectUri: UNREGISTERED, responseType: 'oauthctl_audit_invalid', pkce: ctx.usesPkce ? ctx.freshPkce() : null });
    if (outcome.kind === 'page') return pass(`an error page (HTTP ${outcome.status}), no redirect to ${UNREGISTERED}`);
    if (outcome.kind === 'push-refused') return pass(`${outcome.text}; no redirect to ${UNREGISTERED}`);
    if (outcome.kind === 'elsewhere' && !outcome.url.startsWith(UNREGISTERED)) return skip(`the server sent the browser to ${outcome.url}, which the audit does not follow`);
    const what = outcome.kind === 'redirect' && outcome.params.error ? `with error=${outcome.params.error}` : 'without an error';
    return fail(`redirected ${what} to the unregistered ${UNREGISTERED}`);
  },
};
