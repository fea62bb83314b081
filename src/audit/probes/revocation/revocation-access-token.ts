import { freshTokens } from '../../fresh-tokens.js';
import { describeResponse } from '../../outcomes.js';
import { revoke } from '../../token-management.js';
import { checkLiveness } from '../../token-liveness.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 7009 section 2.1: a revoked access token stops working (as soon as practical: where the server can tell). */
export const revocationAccessTokenProbe: AuditProbe = {
  id: 'revocation-access-token',
  title: 'a revoked access token is no longer active',
  rfc: 'RFC 7009 §2.1',
  category: 'revocation',
  threat: 'RFC 6819 §5.2.2.4 (revocation of stolen tokens)',
  remedy: 'Invalidate revoked access tokens where the server checks them (introspection, userinfo).',
  needsFlow: true,
  async run(ctx) {
    const { body } = await freshTokens(ctx);
    const accessToken = String(body.access_token);
    const res = await revoke(ctx, accessToken, 'access_token');
    if (res.status !== 200) return fail(`the revocation request was refused: ${describeResponse(res.status, res.body)}`);
    const liveness = await checkLiveness(ctx, { accessToken });
    if (liveness.valid === true) return fail(`revoked, but still active: ${liveness.how}`);
    if (liveness.valid === undefined) return skip(`revoked (HTTP 200); whether it stopped working is unknown: ${liveness.how}`);
    return pass(`revoked: ${liveness.how}`);
  },
};
