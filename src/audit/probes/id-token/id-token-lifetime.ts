import { freshIdToken } from '../../id-token-response.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

const LONGEST_SECONDS = 86_400;

/** OpenID Connect Core section 2: exp and iat; an ID token is a short-lived statement of a login. */
export const idTokenLifetimeProbe: AuditProbe = {
  id: 'id-token-lifetime',
  title: 'the ID token is short-lived (at most a day)',
  rfc: 'OIDC Core §2',
  category: 'id-token',
  threat: 'RFC 6819 §4.6.5 (replay of an old ID token as a login)',
  remedy: 'Give ID tokens a lifetime of minutes to an hour.',
  needsFlow: true,
  async run(ctx) {
    const { claims } = (await freshIdToken(ctx)).idToken;
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') return fail('the ID token lacks exp or iat (OIDC Core §2: REQUIRED)');
    const lifetime = claims.exp - claims.iat;
    if (lifetime > LONGEST_SECONDS) return warn(`the ID token lives ${Math.round(lifetime / 3600)} hours`);
    return pass(`lifetime ${lifetime} s`);
  },
};
