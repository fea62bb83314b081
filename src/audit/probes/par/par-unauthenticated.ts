import { jsonObject } from '../../json-body.js';
import { parEndpointOf } from '../../par-endpoint.js';
import { describeResponse } from '../../outcomes.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 9126 section 2.1: a confidential client authenticates at the PAR endpoint as at the token endpoint. */
export const parUnauthenticatedProbe: AuditProbe = {
  id: 'par-unauthenticated',
  title: "a confidential client's pushed request without client authentication is refused",
  rfc: 'RFC 9126 §2.1',
  category: 'par',
  threat: 'RFC 9126 §7.1 (requests pushed in the name of a client)',
  remedy: 'Authenticate confidential clients at the PAR endpoint with their registered method.',
  async run(ctx) {
    const endpoint = parEndpointOf(ctx);
    if (ctx.isPublicClient) return skip(`${ctx.config.clientId} is a public client: it has no authentication to leave out`);
    const params = new URL(ctx.authorizationUrl({ pkce: ctx.freshPkce() })).searchParams;
    const res = await ctx.http.request(endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: params.toString() });
    if (res.status >= 200 && res.status < 300 && typeof jsonObject(res.body)?.request_uri === 'string') return fail(`a request pushed with client_id ${ctx.config.clientId} alone got a request_uri`);
    return pass(`refused: ${describeResponse(res.status, res.body)}`);
  },
};
