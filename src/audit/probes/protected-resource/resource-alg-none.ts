import { mustRefuse, present } from '../../protected-resource.js';
import { tokenShape, unsigned } from '../../resource-tokens.js';
import type { AuditProbe } from '../../types.js';

/** RFC 8725 sections 2.1 and 3.1, RFC 9068 section 4: an unsigned token (alg none) with valid claims is refused. */
export const resourceAlgNoneProbe: AuditProbe = {
  id: 'resource-alg-none',
  title: 'an unsigned JWT (alg none) is refused',
  rfc: 'RFC 8725 §3.1',
  category: 'protected-resource',
  threat: 'RFC 8725 §2.1 (alg none taken as valid)',
  remedy: 'accept only the signing algorithms the authorization server uses (RFC 9068 section 4); never none',
  needsFlow: true,
  async run(ctx) {
    return mustRefuse(await present(ctx, unsigned(await tokenShape(ctx))), 'a token with valid claims and alg none');
  },
};
