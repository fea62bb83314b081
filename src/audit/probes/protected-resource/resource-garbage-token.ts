import { mustRefuse, present, workingToken } from '../../protected-resource.js';
import { garbageToken } from '../../resource-tokens.js';
import type { AuditProbe } from '../../types.js';

/**
 * RFC 6750 section 3.1 (invalid_token: "malformed, or invalid for other reasons"): a string no server
 * issued is refused with 401 and a challenge. A resource whose token check throws on what it cannot
 * parse answers 500, which is no refusal.
 */
export const resourceGarbageTokenProbe: AuditProbe = {
  id: 'resource-garbage-token',
  title: 'a random string as token gets 401, not an error',
  rfc: 'RFC 6750 §3.1',
  category: 'protected-resource',
  threat: 'RFC 6750 §3.1 (a token check that breaks on bad input)',
  remedy: 'answer a token that does not parse or verify with 401 and WWW-Authenticate: Bearer error="invalid_token"; never let the check throw',
  needsFlow: true,
  async run(ctx) {
    await workingToken(ctx);
    return mustRefuse(await present(ctx, garbageToken()), 'a random string as bearer token');
  },
};
