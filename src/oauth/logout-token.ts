/** Back-Channel Logout 1.0 section 2.4: the event member that makes a JWT a logout token. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** Section 2.4: the explicit type logout tokens should carry (and that keeps an ID token from passing for one). */
export const LOGOUT_TOKEN_TYP = 'logout+jwt';

/**
 * The rules of Back-Channel Logout 1.0 section 2.6 that are the logout token's own (signature, iss, aud,
 * iat and exp are checked as for an ID token, by the caller): typ logout+jwt when present, iat and exp
 * present, sub or sid or both, the backchannel-logout event as a JSON object, and no nonce. Pure: each
 * broken rule is one line.
 */
export function logoutTokenProblems(header: Readonly<Record<string, unknown>>, claims: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const typ = header.typ;
  if (typ !== undefined && typeof typ === 'string' && typ.toLowerCase().replace(/^application\//, '') !== LOGOUT_TOKEN_TYP) {
    problems.push(`typ is ${JSON.stringify(typ)}, not ${LOGOUT_TOKEN_TYP} (section 2.4): this may be another kind of JWT`);
  }
  if (typeof claims.iat !== 'number') problems.push('iat is missing (section 2.4)');
  if (typeof claims.exp !== 'number') problems.push('exp is missing (section 2.4)');
  if (typeof claims.jti !== 'string' || claims.jti === '') problems.push('jti is missing (section 2.4)');
  const sub = typeof claims.sub === 'string' && claims.sub !== '';
  const sid = typeof claims.sid === 'string' && claims.sid !== '';
  if (!sub && !sid) problems.push('neither sub nor sid is present: the token names no one to log out (section 2.6)');
  const events = claims.events;
  const event = events !== null && typeof events === 'object' && !Array.isArray(events) ? (events as Record<string, unknown>)[BACKCHANNEL_LOGOUT_EVENT] : undefined;
  if (event === null || typeof event !== 'object' || Array.isArray(event)) problems.push(`events has no ${BACKCHANNEL_LOGOUT_EVENT} member holding a JSON object (section 2.6)`);
  if (claims.nonce !== undefined) problems.push('a nonce is present, which a logout token must not have (section 2.6): it may be an ID token');
  return problems;
}
