import { describeResponse } from '../../outcomes.js';
import { revoke } from '../../token-management.js';
import { pass, warn, type AuditProbe } from '../../types.js';

/** RFC 7009 section 2.2: an invalid token is answered 200, so that revocation tells nothing about which tokens exist. */
export const revocationUnknownTokenProbe: AuditProbe = {
  id: 'revocation-unknown-token',
  title: 'revoking an unknown token answers 200',
  rfc: 'RFC 7009 §2.2',
  category: 'revocation',
  threat: 'RFC 7009 §5 (probing which tokens are valid)',
  remedy: 'Answer HTTP 200 to the revocation of an unknown or invalid token.',
  async run(ctx) {
    const res = await revoke(ctx, 'oauthctl-audit-made-up-token', 'access_token');
    if (res.status === 200) return pass('HTTP 200');
    return warn(`${describeResponse(res.status, res.body)}: the answer tells valid tokens from invalid ones`);
  },
};
