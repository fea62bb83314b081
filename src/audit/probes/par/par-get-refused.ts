import { jsonObject } from '../../json-body.js';
import { parEndpointOf } from '../../par-endpoint.js';
import { describeResponse } from '../../outcomes.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 9126 section 2.1: requests are POSTed; parameters (client credentials among them) never travel in a URL. */
export const parGetRefusedProbe: AuditProbe = {
  id: 'par-get-refused',
  title: 'the PAR endpoint refuses GET',
  rfc: 'RFC 9126 §2.1',
  category: 'par',
  threat: 'RFC 6819 §5.4.2 (credentials in URLs leak through logs)',
  remedy: 'Answer only POST at the PAR endpoint.',
  async run(ctx) {
    const url = new URL(parEndpointOf(ctx));
    for (const [k, v] of new URL(ctx.authorizationUrl({ pkce: ctx.freshPkce() })).searchParams) url.searchParams.append(k, v);
    const res = await ctx.http.request(url.href);
    if (res.status >= 200 && res.status < 300 && typeof jsonObject(res.body)?.request_uri === 'string') return fail('a GET with the request in the query got a request_uri');
    return pass(`GET refused: ${describeResponse(res.status, res.body)}`);
  },
};
