import { present, workingToken, notTested, tokenDecision } from '../../protected-resource.js';
import { fail, pass, type AuditProbe, skip } from '../../types.js';

/** RFC 6750 section 2.3 and 5.3: a token in the query string ends up in logs and Referer headers; the resource refuses it. */
export const resourceQueryTokenProbe: AuditProbe = {
  id: 'resource-query-token',
  title: 'a token in the query string is refused',
  rfc: 'RFC 6750 §2.3',
  category: 'protected-resource',
  threat: 'RFC 6750 §5.3',
  remedy: 'take access tokens from the Authorization header only; ignore access_token in the URL',
  needsFlow: true,
  async run(ctx) {
    const token = await workingToken(ctx);
    const res = await present(ctx, token, 'query');
    const decision = tokenDecision(res);
    if (decision === undefined) return skip(notTested(res));
    if (decision === 'accepted') return fail(`?access_token=... was accepted (HTTP ${res.status})`);
    return pass(`?access_token=...: HTTP ${res.status}`);
  },
};
