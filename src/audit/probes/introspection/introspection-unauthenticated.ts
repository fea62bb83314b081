import { freshTokens } from '../../fresh-tokens.js';
import { describeResponse } from '../../outcomes.js';
import { jsonObject } from '../../json-body.js';
import { managementEndpoint } from '../../token-management.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 7662 sections 2.1 and 4: the introspection endpoint requires authorization, or it is a token-scanning oracle. */
export const introspectionUnauthenticatedProbe: AuditProbe = {
  id: 'introspection-unauthenticated',
  title: 'introspection without authentication is refused',
  rfc: 'RFC 7662 §2.1',
  category: 'introspection',
  threat: 'RFC 7662 §4 (token scanning through an open introspection endpoint)',
  remedy: 'Require client authentication (or a bearer token) at the introspection endpoint.',
  needsFlow: true,
  async run(ctx) {
    const endpoint = managementEndpoint(ctx, 'introspection_endpoint');
    const accessToken = String((await freshTokens(ctx)).body.access_token);
    const res = await ctx.http.request(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ token: accessToken }).toString(),
    });
    if (res.status === 200 && jsonObject(res.body)?.active === true) return fail('an unauthenticated request learned that the token is active, and its claims');
    return pass(`refused: ${describeResponse(res.status, res.body)}`);
  },
};
