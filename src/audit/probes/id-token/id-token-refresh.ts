import { decodeJwtUnverified } from '../../../oauth/jwt.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { freshIdToken } from '../../id-token-response.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** OpenID Connect Core section 12.2: an ID token from a refresh keeps iss and sub, and aud names the client. */
export const idTokenRefreshProbe: AuditProbe = {
  id: 'id-token-refresh',
  title: 'an ID token from a refresh keeps iss and sub',
  rfc: 'OIDC Core §12.2',
  category: 'id-token',
  threat: 'OIDC Core §12.2 (a refresh that switches the user)',
  remedy: 'Issue ID tokens on refresh with the iss and sub of the original and aud the client.',
  needsFlow: true,
  async run(ctx) {
    const { idToken, body } = await freshIdToken(ctx);
    if (typeof body.refresh_token !== 'string') return skip('no refresh token was issued (ask for offline_access in --scope)');
    const refreshed = await ctx.token({ grant_type: 'refresh_token', refresh_token: body.refresh_token });
    if (!issuedTokens(refreshed)) return fail(`the refresh was refused: ${describeExchange(refreshed)}`);
    const raw = (refreshed.json as Record<string, unknown>).id_token;
    if (typeof raw !== 'string') return pass('no ID token on refresh (OIDC Core §12.2 makes it optional)');
    const claims = decodeJwtUnverified(raw)?.claims;
    if (!claims) return fail('the refreshed id_token is not a JWT');
    const problems: string[] = [];
    if (claims.iss !== idToken.claims.iss) problems.push(`iss ${JSON.stringify(claims.iss)} (was ${JSON.stringify(idToken.claims.iss)})`);
    if (claims.sub !== idToken.claims.sub) problems.push(`sub ${JSON.stringify(claims.sub)} (was ${JSON.stringify(idToken.claims.sub)})`);
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.includes(ctx.config.clientId)) problems.push(`aud ${JSON.stringify(claims.aud)} does not name ${ctx.config.clientId}`);
    return problems.length > 0 ? fail(problems.join('; ')) : pass('same iss and sub, aud the client');
  },
};
