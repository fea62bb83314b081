import { decodeJwtUnverified } from '../../../oauth/jwt.js';
import { freshTokens } from '../../fresh-tokens.js';
import { pass, warn, type AuditProbe } from '../../types.js';

/** A day: access tokens living longer are hard to call short-lived. */
const LONGEST_SECONDS = 86_400;

/** RFC 9700 section 4.10 and RFC 6749 section 5.1: access tokens are short-lived, and the client is told how long. */
export const accessTokenLifetimeProbe: AuditProbe = {
  id: 'access-token-lifetime',
  title: 'access tokens are short-lived (expires_in at most a day)',
  rfc: 'RFC 6749 §5.1',
  category: 'tokens',
  threat: 'RFC 9700 §4.10 (misuse of stolen access tokens); RFC 6819 §5.1.5.3',
  remedy: 'Give access tokens a lifetime of minutes to hours and send expires_in.',
  needsFlow: true,
  async run(ctx) {
    const { body } = await freshTokens(ctx);
    const claims = decodeJwtUnverified(String(body.access_token))?.claims;
    const lifetime = typeof body.expires_in === 'number' ? body.expires_in : typeof claims?.exp === 'number' && typeof claims.iat === 'number' ? claims.exp - claims.iat : undefined;
    if (lifetime === undefined) return warn('no expires_in and no exp: the client cannot tell when the token ends (RFC 6749 §5.1 RECOMMENDED)');
    if (lifetime > LONGEST_SECONDS) return warn(`the access token lives ${Math.round(lifetime / 3600)} hours`);
    return pass(`lifetime ${lifetime} s${typeof body.expires_in === 'number' ? '' : ' (from the JWT; no expires_in)'}`);
  },
};
