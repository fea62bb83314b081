import { revokeToken } from '../../../client/responses/token-info.js';
import { decodeJwtUnverified } from '../../../oauth/jwt.js';
import { present, resourceUrl, serverError, workingToken, notTested, tokenDecision } from '../../protected-resource.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * RFC 7009 section 2 and RFC 9700 section 4.10: a revoked access token stops working at the resource,
 * as far as the resource can know. One that introspects (RFC 7662) must refuse it; one that validates
 * self-contained JWTs (RFC 9068) cannot see the revocation, so there it is a warning with the time the
 * token stays good, not a failure.
 */
export const resourceRevokedTokenProbe: AuditProbe = {
  id: 'resource-revoked-token',
  title: 'a revoked token is refused',
  rfc: 'RFC 7009 §2',
  category: 'protected-resource',
  threat: 'RFC 9700 §4.10',
  remedy: 'check tokens by introspection (RFC 7662), or keep JWT access tokens short-lived; a revoked token must stop working',
  needsFlow: true,
  async run(ctx) {
    const endpoint = ctx.endpoint('revocation_endpoint');
    if (endpoint === undefined) return skip('not tested: the authorization server names no revocation_endpoint');
    // A token of its own: the audit never revokes the --token it was given.
    const token = await workingToken(ctx, { fresh: true });
    await revokeToken(ctx.http, ctx.client, endpoint, token, 'access_token');
    const res = await present(ctx, token);
    const decision = tokenDecision(res);
    if (decision === 'server-error') return fail(serverError(res, 'a token revoked at the server'));
    if (decision === undefined) return skip(notTested(res));
    if (decision === 'refused') return pass(`after revocation: HTTP ${res.status}`);
    const exp = decodeJwtUnverified(token)?.claims.exp;
    if (typeof exp === 'number') {
      const left = Math.max(0, exp - Math.floor(Date.now() / 1000));
      return warn(
        `a JWT access token revoked at ${endpoint} still works at ${resourceUrl(ctx)} (HTTP ${res.status}): a resource that validates JWTs itself cannot see a revocation, so it stays good for another ${left} s, until its exp (introspect, or keep tokens short-lived)`,
      );
    }
    return fail(`${resourceUrl(ctx)} still answered HTTP ${res.status} to an opaque token revoked at ${endpoint}: it must introspect (RFC 7662), and introspection says inactive`);
  },
};
