import { audienceOf, present, resourceUrl, serverError, tokenFor, workingToken, notTested, tokenDecision } from '../../protected-resource.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * RFC 8707 section 2 and RFC 9700 section 4.10: a token for another resource (here, one asked for
 * without a resource indicator, which the server issues for its default audience) is refused.
 */
export const resourceAudienceProbe: AuditProbe = {
  id: 'resource-audience',
  title: 'a token for another resource is refused',
  rfc: 'RFC 8707 §2',
  category: 'protected-resource',
  threat: 'RFC 9700 §4.10',
  remedy: 'check that the aud of every access token (or its introspected aud) names this resource; refuse all others',
  needsFlow: true,
  async run(ctx) {
    await workingToken(ctx);
    const url = resourceUrl(ctx);
    const other = await tokenFor(ctx, { resource: null });
    const aud = audienceOf(other);
    if (aud?.includes(url)) return skip(`the server's tokens asked for without a resource are for ${url} too (aud ${aud.join(' ')}): no token for another resource to present`);
    const res = await present(ctx, other);
    const decision = tokenDecision(res);
    if (decision === 'server-error') return fail(serverError(res, `a token ${aud ? `for ${aud.join(' ')}` : 'asked for without a resource'}`));
    if (decision === undefined) return skip(notTested(res));
    if (decision === 'refused') return pass(`a token ${aud ? `for ${aud.join(' ')}` : 'asked for without a resource'}: HTTP ${res.status}`);
    if (aud === undefined) return warn(`an opaque token asked for without a resource was accepted (HTTP ${res.status}): the server may default its audience to this resource`);
    return fail(`a token for ${aud.join(' ')} was accepted (HTTP ${res.status}): the resource does not check the audience, so any token of the server is good here (token passthrough)`);
  },
};
