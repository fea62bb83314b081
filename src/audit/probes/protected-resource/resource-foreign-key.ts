import { mustRefuse, present } from '../../protected-resource.js';
import { signedByAnotherKey, tokenShape } from '../../resource-tokens.js';
import type { AuditProbe } from '../../types.js';

/**
 * RFC 9068 section 4 (the resource validates the signature with the issuer's keys) and RFC 8725
 * section 3.1: a token with the claims of a valid one, signed by a key of the audit's own (the real
 * kid kept), is refused.
 */
export const resourceForeignKeyProbe: AuditProbe = {
  id: 'resource-foreign-key',
  title: 'a JWT signed by another key is refused',
  rfc: 'RFC 9068 §4',
  category: 'protected-resource',
  threat: 'RFC 8725 §2.1 (a signature not checked, or checked with a key the token brings)',
  remedy: "verify every JWT access token's signature with the authorization server's keys (its jwks_uri) only",
  needsFlow: true,
  async run(ctx) {
    const shape = await tokenShape(ctx);
    return mustRefuse(await present(ctx, await signedByAnotherKey(shape)), `a token with valid claims signed by the audit's own ${shape.alg} key`);
  },
};
