import { parseScope } from '../../oauth/scope.js';
import { userClaims } from '../core/tokens/claims.js';
import { userinfoClaims } from '../core/sessions/sessions.js';
import { sendJson, type Exchange } from '../core/http/http.js';
import { bearerClaims, bearerError } from './api.js';

/** GET or POST /userinfo (OpenID Connect Core 5.3): needs scope openid. */
export async function handleUserinfo(ex: Exchange): Promise<void> {
  const claims = await bearerClaims(ex, ['openid'], undefined);
  if (!claims) return;
  const user = [...ex.state.config.users.values()].find((u) => u.sub === claims.sub);
  if (!user) return void bearerError(ex, 401, 'invalid_token', 'the user of this token no longer exists');
  ex.log.outcome = 'ok';
  // OpenID Connect Core 5.5: what the claims request parameter asked for at userinfo, besides the scopes' claims.
  sendJson(ex.res, 200, { sub: user.sub, ...userClaims(user, parseScope(String(claims.scope ?? ''))), ...userinfoClaims(ex.state, claims.jti, user) }, { 'Cache-Control': 'no-store' });
}
