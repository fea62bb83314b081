import { mustRefuse, present, resourceUrl } from '../../protected-resource.js';
import { startLoopbackIssuer, tokenShape } from '../../resource-tokens.js';
import type { AuditProbe } from '../../types.js';

/**
 * RFC 9068 section 4 (iss must match the issuer the resource trusts) and RFC 9700 section 4.10: the
 * audit serves an authorization server of its own on loopback (metadata and keys) and signs a token for
 * this resource as that issuer. A resource that trusts whatever issuer a token names takes it.
 */
export const resourceOtherIssuerProbe: AuditProbe = {
  id: 'resource-other-issuer',
  title: 'a token of another issuer, signed by its own keys, is refused',
  rfc: 'RFC 9068 §4',
  category: 'protected-resource',
  threat: 'RFC 9700 §4.10 (tokens of an issuer the resource does not trust); RFC 8725 §3.8',
  remedy: 'accept tokens only from the issuers you configured (compare iss exactly) and take their keys from those issuers only, never from the token',
  needsFlow: true,
  async run(ctx) {
    const shape = await tokenShape(ctx);
    const other = await startLoopbackIssuer(shape.alg);
    try {
      const token = other.sign(shape.header, { ...shape.claims, aud: resourceUrl(ctx) });
      const verdict = mustRefuse(await present(ctx, token), `a token for ${resourceUrl(ctx)} of the issuer ${other.issuer}`);
      if (verdict.status === 'fail' && other.fetched.length > 0) verdict.detail += `; the resource fetched ${other.fetched.join(', ')} of that issuer, named by the token`;
      return verdict;
    } finally {
      await other.close();
    }
  },
};
