import { mustRefuse, present, presentsAsMcp, workingToken } from '../../protected-resource.js';
import { type AuditProbe } from '../../types.js';

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
    return mustRefuse(res, `a valid token in ?access_token= of a ${presentsAsMcp(ctx) ? 'POST of MCP initialize' : 'GET'}`);
  },
};
