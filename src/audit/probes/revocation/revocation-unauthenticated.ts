import { freshTokens } from '../../fresh-tokens.js';
import { describeResponse } from '../../outcomes.js';
import { managementEndpoint } from '../../token-management.js';
import { checkLiveness } from '../../token-liveness.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 7009 section 2.1: a confidential client authenticates at the revocation endpoint. */
export const revocationUnauthenticatedProbe: AuditProbe = {
  id: 'revocation-unauthenticated',
  title: "a confidential client's token is not revoked without client authentication",
  rfc: 'RFC 7009 §2.1',
  category: 'revocation',
  threat: 'RFC 7009 §5 (denial of service by anyone holding a token)',
  remedy: 'Require client authentication of confidential clients at the revocation endpoint.',
  needsFlow: true,
  async run(ctx) {
    const endpoint = managementEndpoint(ctx, 'revocation_endpoint');
    if (ctx.isPublicClient) return skip(`${ctx.config.clientId} is a public client: it has no authentication to leave out`);
    const { body } = await freshTokens(ctx);
    const accessToken = String(body.access_token);
    const res = await ctx.http.request(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: accessToken, client_id: ctx.config.clientId }).toString(),
    });
    const liveness = await checkLiveness(ctx, { accessToken });
    if (liveness.valid === false) return fail(`revoked without client authentication (${describeResponse(res.status, res.body)}; ${liveness.how})`);
    return pass(`${describeResponse(res.status, res.body)}; ${liveness.how}`);
  },
};
