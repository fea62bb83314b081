import { revokeToken } from '../../../client/token-info.js';
import { present, resourceUrl, workingToken, notTested, tokenDecision } from '../../protected-resource.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 7009 section 2 and RFC 9700 section 4.10: a revoked access token stops working at the resource. */
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
    if (endpoint === undefined) return skip('the server names no revocation_endpoint');
    const token = await workingToken(ctx);
    await revokeToken(ctx.http, ctx.client, endpoint, token, 'access_token');
    const res = await present(ctx, token);
    const decision = tokenDecision(res);
    if (decision === undefined) return skip(notTested(res));
    if (decision === 'accepted') return fail(`${resourceUrl(ctx)} still answered HTTP ${res.status} to a token revoked at ${endpoint}`);
    return pass(`after revocation: HTTP ${res.status}`);
  },
};
