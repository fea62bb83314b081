import { decodeJwtUnverified } from '../../../oauth/jwt.js';
import { freshTokens } from '../../fresh-tokens.js';
import { pass, skip, warn, type AuditProbe } from '../../types.js';

/** RFC 9068 section 2.1: a JWT access token is typed at+jwt, so that no other JWT (an ID token) passes for one. */
export const accessTokenJwtTypProbe: AuditProbe = {
  id: 'access-token-jwt-typ',
  title: 'JWT access tokens are typed at+jwt',
  rfc: 'RFC 9068 §2.1',
  category: 'tokens',
  threat: 'RFC 8725 §3.11 (an ID token or another JWT accepted as an access token)',
  remedy: 'Set typ at+jwt in the header of JWT access tokens.',
  needsFlow: true,
  async run(ctx) {
    const decoded = decodeJwtUnverified(String((await freshTokens(ctx)).body.access_token));
    if (!decoded) return skip('the access token is opaque, not a JWT');
    const typ = String(decoded.header.typ ?? '');
    if (['at+jwt', 'application/at+jwt'].includes(typ.toLowerCase())) return pass(`typ ${typ}`);
    return warn(`typ ${typ ? JSON.stringify(typ) : 'absent'}: a resource server cannot tell this JWT from an ID token by its type`);
  },
};
