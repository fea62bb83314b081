import { postAuthenticated } from '../../../client/flows/endpoint-request.js';
import { describeResponse } from '../../outcomes.js';
import { jsonObject } from '../../json-body.js';
import { managementEndpoint } from '../../token-management.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 7662 section 2.2: a token the server does not know is {"active": false}, nothing more. */
export const introspectionUnknownTokenProbe: AuditProbe = {
  id: 'introspection-unknown-token',
  title: 'an unknown token introspects as active false',
  rfc: 'RFC 7662 §2.2',
  category: 'introspection',
  threat: 'RFC 7662 §4 (a made-up token taken for a valid one)',
  remedy: 'Answer unknown, expired or revoked tokens with {"active": false} only.',
  async run(ctx) {
    const endpoint = managementEndpoint(ctx, 'introspection_endpoint');
    const res = await postAuthenticated(ctx.http, ctx.client, endpoint, { token: 'oauthctl-audit-made-up-token' });
    if (res.status === 401 || res.status === 403) return skip(`${ctx.config.clientId} may not introspect: ${describeResponse(res.status, res.body)}`);
    const body = jsonObject(res.body);
    if (res.status !== 200 || body === undefined) return fail(`not an introspection response: ${describeResponse(res.status, res.body)}`);
    if (body.active !== false) return fail(`active is ${JSON.stringify(body.active)} for a made-up token`);
    const extra = Object.keys(body).filter((k) => k !== 'active');
    return pass(extra.length > 0 ? `active false, with ${extra.join(', ')}` : 'active false');
  },
};
