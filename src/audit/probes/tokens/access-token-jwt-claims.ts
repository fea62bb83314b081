import { decodeJwtUnverified } from '../../../oauth/jwt.js';
import { freshTokens } from '../../fresh-tokens.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

const REQUIRED = ['iss', 'exp', 'aud', 'sub', 'client_id', 'iat', 'jti'];

/** RFC 9068 section 2.2: the claims a resource server needs to validate a JWT access token. */
export const accessTokenJwtClaimsProbe: AuditProbe = {
  id: 'access-token-jwt-claims',
  title: 'JWT access tokens carry iss, exp, aud, sub, client_id, iat and jti',
  rfc: 'RFC 9068 §2.2',
  category: 'tokens',
  threat: 'RFC 9700 §4.9 (access token replay at another resource: no audience)',
  remedy: 'Put iss (the issuer), exp, aud, sub, client_id, iat and jti in JWT access tokens.',
  needsFlow: true,
  async run(ctx) {
    const decoded = decodeJwtUnverified(String((await freshTokens(ctx)).body.access_token));
    if (!decoded) return skip('the access token is opaque, not a JWT');
    const { claims } = decoded;
    if (ctx.issuer !== undefined && claims.iss !== undefined && claims.iss !== ctx.issuer) return fail(`iss ${JSON.stringify(claims.iss)} is not the issuer ${ctx.issuer}`);
    const missing = REQUIRED.filter((c) => claims[c] === undefined);
    if (missing.includes('aud') || missing.includes('exp')) return fail(`no ${missing.join(', ')}: the token is good at any resource, or forever`);
    if (missing.length > 0) return warn(`no ${missing.join(', ')}`);
    return pass(`all of ${REQUIRED.join(', ')}`);
  },
};
